/**
 * TLS is not simulated: inside a host, every API that would put TLS on the simulated network
 * (https.request/get, tls.connect, http2.connect to https:, new tls.TLSSocket(socket), fetch of
 * an https: URL, and a TLS server's listen) fails when it is called, with an UnsupportedError
 * (DST_UNSUPPORTED) naming the API and what to do instead — not with a `read ENOTCONN` later on
 * the first request. Outside the hosts (the test runner) TLS is the real one, also during a run.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { Sim, SimulationError } from 'dst-runtime';
import { runProgram } from '../support/programs.mjs';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const NOT_SUPPORTED = 'is not supported inside a dst-runtime simulation';
const CLIENT_INSTEAD =
  'TLS is not simulated yet; inside the simulation request over plain http or net instead ' +
  '(http.request, fetch of an http: URL, net.connect), and keep TLS outside the hosts';
const SERVER_INSTEAD =
  'TLS is not simulated yet; inside the simulation serve plain http or net instead ' +
  '(http.createServer, net.createServer), and keep TLS outside the hosts';
const H2C = '(HTTP/2 over the simulated network)';
const H2C_INSTEAD =
  "HTTP/2 is not simulated yet (Node's HTTP/2 session reads and writes the socket natively); inside the " +
  'simulation use HTTP/1.1 (http.request, http.createServer, fetch of an http: URL), and keep HTTP/2 outside the hosts';
const refused = (api, instead = CLIENT_INSTEAD) => `UnsupportedError DST_UNSUPPORTED: ${api} (TLS over the simulated network) ${NOT_SUPPORTED}: ${instead}`;

/**
 * A throwaway self-signed certificate for localhost (P-256, valid for 100 years from
 * 2026-11-30), committed so that no test needs the openssl CLI. It protects nothing.
 */
function makeCertificate() {
  const keyFile = fileURLToPath(new URL('./fixtures/tls/localhost-key.pem', import.meta.url));
  const certFile = fileURLToPath(new URL('./fixtures/tls/localhost-cert.pem', import.meta.url));
  return { keyFile, certFile, key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) };
}

describe('TLS over the simulated network: refused with an UnsupportedError naming the API', function () {
  let certificate;
  before(function () {
    certificate = makeCertificate();
  });

  describe('register mode', function () {
    it('each TLS API fails at its call; a plain socket offered to TLS keeps working; createSecureContext works', function () {
      const run = runProgram(FIXTURES, 'tls-refused.mjs', { seed: '0x1' });
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(run.stdout.trimEnd().split('\n').sort(), [
        `https.get: ${refused('https.get()')}`,
        `https.request: ${refused('https.request()')}`,
        `tls.connect: ${refused('tls.connect()')}`,
        `http2.connect: ${refused('http2.connect()')}`,
        `https listen: ${refused('server.listen() of an https.Server', SERVER_INSTEAD)}`,
        `tls listen: ${refused('server.listen() of a tls.Server', SERVER_INSTEAD)}`,
        `http2 secure listen: ${refused('server.listen() of an http2 secure server (http2.createSecureServer)', SERVER_INSTEAD)}`,
        'tls.createSecureContext: no error',
        `h2c connect: UnsupportedError DST_UNSUPPORTED: http2.connect() to an http: URL ${H2C} ${NOT_SUPPORTED}: ${H2C_INSTEAD}`,
        `h2c listen: UnsupportedError DST_UNSUPPORTED: server.listen() of an http2 server (http2.createServer) ${H2C} ${NOT_SUPPORTED}: ${H2C_INSTEAD}`,
        `server-side TLSSocket: ${refused('new tls.TLSSocket(socket)', SERVER_INSTEAD)}`,
        `new tls.TLSSocket(socket): ${refused('new tls.TLSSocket(socket)')}`,
        `tls.connect({ socket }): ${refused('tls.connect()')}`,
        'plain socket still works: plain bytes',
        `fetch: TypeError fetch failed; cause DST_UNSUPPORTED: tls.connect() (TLS over the simulated network) ${NOT_SUPPORTED}: ${CLIENT_INSTEAD}`,
      ].sort());
    });

    it('an uncaught refusal crashes host main: exit 1, the seed report and Node report name the API', function () {
      const run = runProgram(FIXTURES, 'tls-crash.mjs', { seed: '0x1', env: { TLS_CASE: 'get' } });
      assert.equal(run.status, 1, run.stderr);
      assert.equal(run.stdout, '');
      const message = `https.get() (TLS over the simulated network) ${NOT_SUPPORTED}: ${CLIENT_INSTEAD}`;
      assert.ok(
        run.stderr.includes(`dst: host "main" crashed with an uncaught exception: UnsupportedError: ${message}`),
        run.stderr,
      );
      assert.match(run.stderr, /^ {2}replay {3}DST_SEED=0x1 node --import \S+ tls-crash\.mjs$/m);
      assert.match(run.stderr, /code: 'DST_UNSUPPORTED'/);
      assert.doesNotMatch(run.stderr, /ENOTCONN/);
    });

    it('an https server and client on loopback: refused at listen(), not a read ENOTCONN on the request', function () {
      const env = { TLS_KEY: certificate.keyFile, TLS_CERT: certificate.certFile };
      const plain = runProgram(FIXTURES, 'tls-crash.mjs', { env });
      assert.equal(plain.stdout, 'got hi\n', plain.stderr);
      const run = runProgram(FIXTURES, 'tls-crash.mjs', { seed: '0x1', env });
      assert.equal(run.status, 1, run.stderr);
      assert.equal(run.stdout, '');
      const message = `server.listen() of an https.Server (TLS over the simulated network) ${NOT_SUPPORTED}: ${SERVER_INSTEAD}`;
      // The entry module's top level throws: for an ES module that is a rejection of its evaluation.
      assert.ok(run.stderr.includes(`dst: host "main" crashed with an unhandled rejection: UnsupportedError: ${message}`), run.stderr);
      assert.doesNotMatch(run.stderr, /ENOTCONN/);
    });
  });

  describe('library mode', function () {
    it('refuses inside a host, at the call, naming the API', async function () {
      const errors = [];
      const sim = new Sim({ seed: 0x715 });
      sim.host('server', () => {
        try {
          https.createServer().listen(443);
        } catch (error) {
          errors.push(`${error.code}: ${error.message}`);
        }
      });
      sim.client('client', () => {
        for (const call of [() => https.get('https://server/'), () => tls.connect(443, 'server')]) {
          try {
            call();
            errors.push('no error');
          } catch (error) {
            errors.push(`${error.code}: ${error.message}`);
          }
        }
      });
      await sim.run();
      assert.deepEqual(errors, [
        `DST_UNSUPPORTED: server.listen() of an https.Server (TLS over the simulated network) ${NOT_SUPPORTED}: ${SERVER_INSTEAD}`,
        `DST_UNSUPPORTED: https.get() (TLS over the simulated network) ${NOT_SUPPORTED}: ${CLIENT_INSTEAD}`,
        `DST_UNSUPPORTED: tls.connect() (TLS over the simulated network) ${NOT_SUPPORTED}: ${CLIENT_INSTEAD}`,
      ]);
    });

    it('a refusal the host does not catch fails the run with a SimulationError carrying it', async function () {
      const sim = new Sim({ seed: 0x715 });
      sim.client('client', () => new Promise((resolve) => setTimeout(() => resolve(https.get('https://server/')), 10)));
      const failure = await sim.run().then(
        () => assert.fail('the run should fail'),
        (error) => error,
      );
      assert.ok(failure instanceof SimulationError, String(failure));
      assert.equal(failure.report.host, 'client');
      assert.equal(failure.report.error?.code, 'DST_UNSUPPORTED');
      assert.match(failure.report.error.message, /^https\.get\(\) \(TLS over the simulated network\) is not supported/);
      assert.match(failure.message, /https\.get\(\) \(TLS over the simulated network\)/);
    });

    it('outside the hosts TLS is real, during a run: an https round trip on loopback, ECONNREFUSED from a closed port', async function () {
      // The run lasts until the checks below are done: the shims stay installed meanwhile.
      let checked = false;
      let finished = false;
      const sim = new Sim({ seed: 0x715 });
      sim.client('c', () => new Promise((resolve) => {
        const timer = setInterval(() => {
          if (!checked) return;
          clearInterval(timer);
          resolve();
        }, 1);
      }));
      const running = sim.run().then(() => {
        finished = true;
      });
      // A port that was free a moment ago: nobody listens on it.
      const closedPort = await new Promise((resolve) => {
        const probe = https.createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address();
          probe.close(() => resolve(port));
        });
      });
      const refusedError = await new Promise((resolve) => {
        const socket = tls.connect(closedPort, '127.0.0.1');
        socket.on('error', resolve);
      });
      assert.equal(refusedError.code, 'ECONNREFUSED');
      assert.ok(tls.createSecureContext() instanceof tls.SecureContext);
      const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => res.end('real tls'));
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const body = await new Promise((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port: server.address().port, ca: certificate.cert, servername: 'localhost', agent: false }, (res) => {
            let text = `${res.socket.getProtocol()} `;
            res.setEncoding('utf8');
            res.on('data', (data) => (text += data));
            res.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
      await new Promise((resolve) => server.close(resolve));
      assert.match(body, /^TLSv1\.[23] real tls$/);
      assert.equal(finished, false, 'the run ended before the checks');
      checked = true;
      await running;
    });
  });
});
