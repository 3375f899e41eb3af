/**
 * TLS, https and HTTP/2 between simulated hosts in library mode: hosts reached by name with
 * certificates from sim.tls(), the same certificates from tlsCertificates() in host code,
 * verification against the simulation's CA, faults under TLS (a hold delays the handshake
 * past the server's handshakeTimeout, in virtual time; a crashed server resets its clients),
 * server ticket keys drawn from the host's seeded stream, and real TLS outside the hosts.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';
import { Sim, STARTUP_MS, tlsCertificates, UsageError } from 'dst-runtime';

const once = (emitter, event) => new Promise((resolve) => emitter.once(event, resolve));

describe('TLS between simulated hosts (library mode)', function () {
  this.timeout(60_000);

  it('https by host name with sim.tls(): verified, mutual, and refused for a name the certificate lacks', async () => {
    const sim = new Sim({ seed: 0x715 });
    const pki = sim.tls();
    const log = [];
    sim.host('api', () => {
      const options = { key: pki.key('api'), cert: pki.cert('api'), ca: pki.ca, requestCert: true, rejectUnauthorized: false };
      https.createServer(options, (req, res) => res.end(`hello ${req.socket.authorized ? req.socket.getPeerCertificate().subject.CN : 'anonymous'}`)).listen(443);
    });
    sim.client('web', async () => {
      const get = (url, options) =>
        new Promise((resolve) => {
          https
            .get(url, options, (res) => {
              let body = '';
              res.on('data', (d) => (body += d));
              res.on('end', () => resolve(`${res.statusCode} ${body}`));
            })
            .on('error', (err) => resolve(`error ${err.code}`));
        });
      log.push(await get('https://api/', { ca: pki.ca }));
      log.push(await get('https://api/', { ca: pki.ca, key: pki.key('web'), cert: pki.cert('web') }));
      log.push(await get('https://api/', {}));
      log.push(await get(`https://${sim.addressOf('api').ipv4}/`, { ca: pki.ca }));
      const socket = tls.connect({ host: 'api', port: 443, ca: pki.ca });
      await once(socket, 'secureConnect');
      log.push(`peer ${socket.getPeerCertificate().subject.CN} issuer ${socket.getPeerCertificate().issuer.CN} authorized ${socket.authorized}`);
      socket.destroy();
    });
    await sim.run();
    assert.deepEqual(log, [
      '200 hello anonymous',
      '200 hello web',
      // The server's context has the CA too, so OpenSSL sends it along: a self-signed root in the chain.
      'error SELF_SIGNED_CERT_IN_CHAIN',
      'error ERR_TLS_CERT_ALTNAME_INVALID',
      'peer api issuer dst-runtime test CA authorized true',
    ]);
  });

  it('tlsCertificates() in host code gives the set of sim.tls(); with a seed, that seed’s; bad input is refused', async () => {
    const sim = new Sim({ seed: 0x99 });
    let inside;
    sim.client('c', () => {
      inside = tlsCertificates();
    });
    await sim.run();
    assert.equal(inside.ca, sim.tls().ca);
    assert.equal(inside.cert('db'), sim.tls().cert('db'));
    assert.equal(inside.key('db'), tlsCertificates(0x99).key('db'));
    assert.notEqual(tlsCertificates(0x98).ca, inside.ca);
    assert.throws(() => tlsCertificates(), (error) => error instanceof UsageError && /no simulation is running; pass a seed/.test(error.message));
    assert.throws(() => inside.cert('no spaces allowed'), (error) => error instanceof UsageError && /must be a host name or an IP address, got "no spaces allowed"/.test(error.message));
  });

  it('a hold on the link delays the ClientHello past handshakeTimeout: the server gives up at that virtual instant', async () => {
    const sim = new Sim({ seed: 0x716, network: { latency: { minMs: 1, maxMs: 1 } } });
    const pki = sim.tls();
    const log = [];
    sim.host('api', () => {
      const server = tls.createServer({ key: pki.key('api'), cert: pki.cert('api'), handshakeTimeout: 2_000 }, (s) => s.end('hi'));
      server.on('tlsClientError', (err, socket) => {
        log.push(`server ${err.code} at ${performance.now().toFixed(0)} ms`);
        socket.destroy();
      });
      server.listen(443);
    });
    sim.client('web', async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const socket = tls.connect({ host: 'api', port: 443, ca: pki.ca });
      socket.on('connect', () => sim.hold('web', 'api'));
      socket.on('error', (err) => log.push(`client ${err.code}`));
      await once(socket, 'close');
      log.push(`client closed at ${performance.now().toFixed(0)} ms`);
    });
    sim.client('operator', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      sim.release('web', 'api');
    });
    await sim.run();
    // Connected at 100 ms plus latency: the timer runs from the server's accept.
    // (performance.now() counts the process's start-up, STARTUP_MS, too.)
    const at = (line, pattern) => Number((pattern.exec(line) ?? assert.fail(line))[1]) - STARTUP_MS;
    const timedOutMs = at(log[0], /^server ERR_TLS_HANDSHAKE_TIMEOUT at (\d+) ms$/);
    assert.ok(timedOutMs >= 2100 && timedOutMs < 2110, log[0]);
    const closedMs = at(log.at(-1), /^client closed at (\d+) ms$/);
    assert.ok(closedMs >= 5000 && closedMs < 5100, log.at(-1));
  });

  it('h2 over TLS and h2c between hosts by name', async () => {
    const sim = new Sim({ seed: 0x717 });
    const pki = sim.tls();
    const log = [];
    sim.host('api', () => {
      const secure = http2.createSecureServer({ key: pki.key('api'), cert: pki.cert('api') });
      secure.on('stream', (stream, headers) => {
        stream.respond({ ':status': 200 });
        stream.end(`h2 ${headers[':path']}`);
      });
      secure.listen(8443);
      const plain = http2.createServer();
      plain.on('stream', (stream, headers) => {
        stream.respond({ ':status': 200 });
        stream.end(`h2c ${headers[':path']}`);
      });
      plain.listen(8080);
    });
    sim.client('web', async () => {
      for (const [authority, options] of [
        ['https://api:8443', { ca: pki.ca }],
        ['http://api:8080', {}],
      ]) {
        const session = http2.connect(authority, options);
        const bodies = await Promise.all(
          ['/a', '/b'].map(
            (path) =>
              new Promise((resolve) => {
                let body = '';
                const req = session.request({ ':path': path });
                req.on('data', (d) => (body += d));
                req.on('end', () => resolve(body));
              }),
          ),
        );
        log.push(`${authority} alpn=${session.alpnProtocol} ${bodies.join(' ')}`);
        session.close();
      }
    });
    await sim.run();
    assert.deepEqual(log, ['https://api:8443 alpn=h2 h2 /a h2 /b', 'http://api:8080 alpn=h2c h2c /a h2c /b']);
  });

  it("a server's ticket keys come from its host's seeded stream, unless the program gives its own", async () => {
    const keysOf = async (seed) => {
      const sim = new Sim({ seed });
      const pki = sim.tls();
      const keys = [];
      sim.client('api', () => {
        keys.push(tls.createServer({ key: pki.key('api'), cert: pki.cert('api') }).getTicketKeys().toString('hex'));
        keys.push(https.createServer({ key: pki.key('api'), cert: pki.cert('api') }).getTicketKeys().toString('hex'));
        keys.push(tls.createServer({ key: pki.key('api'), cert: pki.cert('api'), ticketKeys: Buffer.alloc(48, 7) }).getTicketKeys().toString('hex'));
      });
      await sim.run();
      return keys;
    };
    const a = await keysOf(1);
    assert.deepEqual(await keysOf(1), a);
    assert.notDeepEqual((await keysOf(2)).slice(0, 2), a.slice(0, 2));
    assert.notEqual(a[0], a[1]);
    assert.equal(a[2], '07'.repeat(48));
  });

  it('outside the hosts TLS is the real one, during a run', async () => {
    let checked = false;
    const sim = new Sim({ seed: 0x718 });
    sim.client('c', () => new Promise((resolve) => {
      const timer = setInterval(() => {
        if (!checked) return;
        clearInterval(timer);
        resolve();
      }, 1);
    }));
    const running = sim.run();
    const pki = tlsCertificates(5);
    const server = https.createServer({ key: pki.key('localhost'), cert: pki.cert('localhost') }, (req, res) => res.end('real tls'));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const body = await new Promise((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port: server.address().port, ca: pki.ca, servername: 'localhost', agent: false }, (res) => {
          let text = `${res.socket.getProtocol()} `;
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
    await new Promise((resolve) => server.close(resolve));
    assert.equal(body, 'TLSv1.3 real tls');
    checked = true;
    await running;
  });
});
