/**
 * dns on the simulated network (library mode): host names resolve to their host's addresses
 * (10.0.0.N and fd00::N, N in registration order) through dns.lookup, dns.resolve*, dns.reverse,
 * dns.Resolver and dns.promises.Resolver; every other name is unknown (ENOTFOUND) and no query
 * ever leaves the process. Errors are compared with those real Node raises outside the
 * simulation for a name that cannot exist ('nonexistent.invalid', RFC 6761).
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import net from 'node:net';
import { execFileSync } from 'node:child_process';
import dns from 'node:dns';
import { promisify } from 'node:util';
import { Sim } from 'dst-runtime';

const channelProto = process.binding('cares_wrap').ChannelWrap.prototype;
const PATCHED_METHODS = ['queryA', 'queryAaaa', 'queryAny', 'queryPtr', 'getHostByAddr', 'cancel', 'getServers', 'setServers'];

/** The fields a program can observe on a Node error. */
function shape(err) {
  return {
    name: err.name,
    constructor: err.constructor.name,
    message: err.message,
    code: err.code,
    errno: err.errno,
    syscall: err.syscall,
    hostname: err.hostname,
    keys: Object.keys(err).sort(),
  };
}

/** Runs `fn(done)` until done(value) is called; resolves with value. */
function callback(fn) {
  return new Promise((resolve) => fn((...args) => resolve(args)));
}

/** A real resolver that gives up quickly (this machine may have no DNS server at all). */
function quickRealResolver() {
  return new dns.Resolver({ timeout: 1_000, tries: 1 });
}

describe('dns on the simulated network', function () {
  const originals = Object.fromEntries(PATCHED_METHODS.map((name) => [name, channelProto[name]]));

  afterEach(function () {
    for (const name of PATCHED_METHODS) assert.equal(channelProto[name], originals[name], `ChannelWrap.prototype.${name} restored`);
  });

  it('dns.lookup gives each host its 10.0.0.N / fd00::N address, N in registration order', async function () {
    const seen = {};
    const sim = new Sim({ seed: 0xd1 });
    sim.host('kv-1', () => {});
    sim.host('kv-2', () => {});
    sim.client('tester', async () => {
      seen.kv1 = await callback((done) => dns.lookup('kv-1', done));
      seen.kv2v6 = await callback((done) => dns.lookup('kv-2', { family: 6 }, done));
      seen.all = await callback((done) => dns.lookup('kv-2', { all: true, family: 0 }, done));
      seen.self = await promisify(dns.lookup)('tester');
      seen.upper = await callback((done) => dns.lookup('KV-1.', done));
    });
    await sim.run();
    assert.deepEqual(seen.kv1, [null, '10.0.0.1', 4]);
    assert.deepEqual(seen.kv2v6, [null, 'fd00::2', 6]);
    assert.deepEqual(seen.all, [null, [{ address: '10.0.0.2', family: 4 }]]);
    assert.deepEqual(seen.self, { address: '10.0.0.3', family: 4 });
    assert.deepEqual(seen.upper, [null, '10.0.0.1', 4]);
  });

  it('treats host names as DNS does: case-insensitive, a host named in capitals included (issue 20 item 4)', async function () {
    const seen = {};
    const sim = new Sim({ seed: 0xd1 });
    sim.host('R', () => net.createServer((s) => s.end('hello from R')).listen(7000));
    sim.host('srv', () => {});
    sim.client('tester', async () => {
      for (const name of ['R', 'r', 'srv', 'SRV']) seen[name] = await callback((done) => dns.lookup(name, done));
      // A fault named in another case still matches the host's packets.
      sim.partition('r', 'TESTER');
      seen.partitioned = await new Promise((resolve) => {
        const socket = net.connect({ port: 7000, host: 'r', timeout: 3000 }, () => resolve('connected'));
        socket.on('timeout', () => {
          socket.destroy();
          resolve('timed out');
        });
      });
      sim.repair('R', 'tester');
      seen.greeting = await new Promise((resolve, reject) => {
        const socket = net.connect(7000, 'r');
        socket.on('data', (d) => resolve(String(d)));
        socket.on('error', reject);
      });
    });
    await sim.run();
    assert.deepEqual(seen.R, [null, '10.0.0.1', 4]);
    assert.deepEqual(seen.r, [null, '10.0.0.1', 4]);
    assert.deepEqual(seen.srv, [null, '10.0.0.2', 4]);
    assert.deepEqual(seen.SRV, [null, '10.0.0.2', 4]);
    assert.equal(seen.partitioned, 'timed out');
    assert.equal(seen.greeting, 'hello from R');
    // Two hosts whose names differ only in case would have one DNS name: refused, naming both.
    const twins = new Sim({ seed: 0xd1 });
    twins.host('db', () => {});
    assert.throws(() => twins.host('DB', () => {}), { name: 'UsageError', message: /Failed to add host "DB": a host with that name already exists \("db": host names are DNS names, which ignore case\)/ });
  });

  it('answers resolve4 / resolve6 / resolve(rrtype) / ttl / resolveAny / reverse / resolvePtr', async function () {
    const seen = {};
    const sim = new Sim({ seed: 0xd2 });
    sim.host('kv-1', () => {});
    sim.client('tester', async () => {
      seen.a = await callback((done) => dns.resolve4('kv-1', done));
      seen.aTtl = await callback((done) => dns.resolve4('kv-1', { ttl: true }, done));
      seen.aaaa = await callback((done) => dns.resolve6('kv-1', done));
      seen.aaaaTtl = await callback((done) => dns.resolve6('kv-1', { ttl: true }, done));
      seen.resolveDefault = await callback((done) => dns.resolve('kv-1', done));
      seen.resolveAAAA = await callback((done) => dns.resolve('tester', 'AAAA', done));
      seen.any = await callback((done) => dns.resolveAny('kv-1', done));
      seen.reverse4 = await callback((done) => dns.reverse('10.0.0.2', done));
      seen.reverse6 = await callback((done) => dns.reverse('fd00::1', done));
      seen.reverseLoopback = await callback((done) => dns.reverse('127.0.0.1', done));
      seen.ptr = await callback((done) => dns.resolvePtr('1.0.0.10.in-addr.arpa', done));
      seen.mx = (await callback((done) => dns.resolveMx('kv-1', done)))[0];
    });
    await sim.run();
    assert.deepEqual(seen.a, [null, ['10.0.0.1']]);
    assert.deepEqual(seen.aTtl, [null, [{ address: '10.0.0.1', ttl: 300 }]]);
    assert.deepEqual(seen.aaaa, [null, ['fd00::1']]);
    assert.deepEqual(seen.aaaaTtl, [null, [{ address: 'fd00::1', ttl: 300 }]]);
    assert.deepEqual(seen.resolveDefault, [null, ['10.0.0.1']]);
    assert.deepEqual(seen.resolveAAAA, [null, ['fd00::2']]);
    assert.deepEqual(seen.any, [null, [
      { address: '10.0.0.1', ttl: 300, type: 'A' },
      { address: 'fd00::1', ttl: 300, type: 'AAAA' },
    ]]);
    assert.deepEqual(seen.reverse4, [null, ['tester']]);
    assert.deepEqual(seen.reverse6, [null, ['kv-1']]);
    assert.deepEqual(seen.reverseLoopback, [null, ['localhost']]);
    assert.deepEqual(seen.ptr, [null, ['kv-1']]);
    // The name exists but has no MX record.
    assert.deepEqual(shape(seen.mx), {
      name: 'Error', constructor: 'Error', message: 'queryMx ENODATA kv-1', code: 'ENODATA',
      errno: undefined, syscall: 'queryMx', hostname: 'kv-1', keys: ['code', 'errno', 'hostname', 'syscall'],
    });
  });

  it('serves new dns.Resolver(), dns.promises.Resolver and the dns.promises resolve functions', async function () {
    const seen = {};
    const sim = new Sim({ seed: 0xd3 });
    sim.host('kv-1', () => {});
    sim.client('tester', async () => {
      const resolver = new dns.Resolver();
      seen.instance = await callback((done) => resolver.resolve4('kv-1', done));
      seen.instanceReverse = await callback((done) => resolver.reverse('10.0.0.2', done));
      const promises = new dns.promises.Resolver({ timeout: 100, tries: 1 });
      seen.promise4 = await promises.resolve4('kv-1');
      seen.promise6 = await promises.resolve('kv-1', 'AAAA');
      seen.promiseTtl = await promises.resolve4('tester', { ttl: true });
      seen.promiseReverse = await promises.reverse('fd00::2');
      seen.moduleLevel = await dns.promises.resolve4('kv-1');
      seen.moduleAny = await dns.promises.resolveAny('tester');
      seen.promisified = await promisify(dns.resolve6)('tester');
    });
    await sim.run();
    assert.deepEqual(seen.instance, [null, ['10.0.0.1']]);
    assert.deepEqual(seen.instanceReverse, [null, ['tester']]);
    assert.deepEqual(seen.promise4, ['10.0.0.1']);
    assert.deepEqual(seen.promise6, ['fd00::1']);
    assert.deepEqual(seen.promiseTtl, [{ address: '10.0.0.2', ttl: 300 }]);
    assert.deepEqual(seen.promiseReverse, ['tester']);
    assert.deepEqual(seen.moduleLevel, ['10.0.0.1']);
    assert.deepEqual(seen.moduleAny.map((r) => r.type), ['A', 'AAAA']);
    assert.deepEqual(seen.promisified, ['fd00::2']);
  });

  it('fails unknown names with Node\'s own ENOTFOUND errors (compared with real Node)', async function () {
    const realLookup = (await callback((done) => dns.lookup('nonexistent.invalid', done)))[0];
    const realQuery = (await callback((done) => quickRealResolver().resolve4('nonexistent.invalid', done)))[0];
    assert.ok(realLookup instanceof Error && realQuery instanceof Error, 'real Node fails both');
    const seen = {};
    const sim = new Sim({ seed: 0xd4 });
    sim.client('tester', async () => {
      seen.lookup = (await callback((done) => dns.lookup('nonexistent.invalid', done)))[0];
      seen.query = (await callback((done) => dns.resolve4('nonexistent.invalid', done)))[0];
      seen.kv9 = (await callback((done) => dns.resolve4('kv-9', done)))[0];
      seen.kv9Six = (await callback((done) => dns.resolve6('kv-9', done)))[0];
      seen.kv9Any = (await callback((done) => dns.resolveAny('kv-9', done)))[0];
      seen.kv9Reverse = (await callback((done) => dns.reverse('10.0.0.9', done)))[0];
      seen.kv9Promise = await dns.promises.resolve4('kv-9').catch((err) => err);
    });
    await sim.run();

    // Where real Node could reach a DNS server its answer is ENOTFOUND too; without a network it
    // fails differently (EAI_AGAIN, ECONNREFUSED, ETIMEOUT), and only the shape can be compared.
    const comparable = (real, sim) => (real.code === 'ENOTFOUND' ? shape(real) : { ...shape(real), code: sim.code, errno: sim.errno, message: sim.message });
    assert.deepEqual(shape(seen.lookup), comparable(realLookup, seen.lookup));
    assert.deepEqual(shape(seen.query), comparable(realQuery, seen.query));
    assert.equal(seen.lookup.message, 'getaddrinfo ENOTFOUND nonexistent.invalid');
    assert.equal(seen.lookup.errno, -3008);
    assert.equal(seen.query.message, 'queryA ENOTFOUND nonexistent.invalid');

    const named = (syscall, hostname) => ({
      name: 'Error', constructor: 'Error', message: `${syscall} ENOTFOUND ${hostname}`, code: 'ENOTFOUND',
      errno: undefined, syscall, hostname, keys: ['code', 'errno', 'hostname', 'syscall'],
    });
    assert.deepEqual(shape(seen.kv9), named('queryA', 'kv-9'));
    assert.deepEqual(shape(seen.kv9Six), named('queryAaaa', 'kv-9'));
    assert.deepEqual(shape(seen.kv9Any), named('queryAny', 'kv-9'));
    assert.deepEqual(shape(seen.kv9Reverse), named('getHostByAddr', '10.0.0.9'));
    assert.deepEqual(shape(seen.kv9Promise), named('queryA', 'kv-9'));
  });

  it('throws synchronously for reverse() of a non-address, like Node', async function () {
    let real;
    try {
      dns.reverse('not-an-ip', () => {});
    } catch (err) {
      real = err;
    }
    let simulated;
    const sim = new Sim({ seed: 0xd5 });
    sim.client('tester', () => {
      try {
        dns.reverse('not-an-ip', () => {});
      } catch (err) {
        simulated = err;
      }
    });
    await sim.run();
    assert.ok(real instanceof Error);
    assert.deepEqual(shape(simulated), shape(real));
    assert.equal(simulated.message, 'getHostByAddr EINVAL not-an-ip');
  });

  it('cancels pending queries with ECANCELLED, asynchronously, like Node', async function () {
    const real = await new Promise((resolve) => {
      const resolver = quickRealResolver();
      resolver.resolve4('nonexistent.invalid', (err) => resolve(err));
      resolver.cancel();
    });
    const seen = {};
    const sim = new Sim({ seed: 0xd6 });
    sim.host('kv-1', () => {});
    sim.client('tester', async () => {
      const resolver = new dns.Resolver();
      let sync = true;
      const answered = callback((done) => resolver.resolve4('kv-1', (...args) => done(sync, ...args)));
      resolver.cancel();
      sync = false;
      [seen.sync, seen.err, seen.result] = await answered;
      const promises = new dns.promises.Resolver();
      const pending = promises.resolve6('kv-1').catch((err) => err);
      promises.cancel();
      seen.promiseErr = await pending;
      // The channel still works after a cancel.
      seen.after = await promises.resolve4('kv-1');
    });
    await sim.run();
    assert.equal(real.code, 'ECANCELLED');
    assert.equal(seen.sync, false);
    assert.equal(seen.result, undefined);
    assert.deepEqual(shape(seen.err), { ...shape(real), message: 'queryA ECANCELLED kv-1', hostname: 'kv-1' });
    assert.equal(seen.promiseErr.message, 'queryAaaa ECANCELLED kv-1');
    assert.equal(seen.promiseErr.code, 'ECANCELLED');
    assert.deepEqual(seen.after, ['10.0.0.1']);
  });

  it('keeps dns.setServers / getServers working inside hosts without touching the runner\'s resolver', async function () {
    const before = dns.getServers();
    let invalidReal;
    try {
      new dns.Resolver().setServers(['not an address']);
    } catch (err) {
      invalidReal = err;
    }
    const seen = {};
    const sim = new Sim({ seed: 0xd7 });
    sim.host('kv-1', () => {});
    sim.client('tester', async () => {
      dns.setServers(['10.0.0.53', '[fd00::35]:5353', '10.0.0.54:5300']);
      seen.servers = dns.getServers();
      seen.resolved = await callback((done) => dns.resolve4('kv-1', done));
      const resolver = new dns.Resolver();
      resolver.setServers(['10.0.0.99']);
      seen.instanceServers = resolver.getServers();
      try {
        resolver.setServers(['not an address']);
      } catch (err) {
        seen.invalid = err;
      }
      seen.afterInvalid = resolver.getServers();
    });
    await sim.run();
    assert.deepEqual(seen.servers, ['10.0.0.53', '[fd00::35]:5353', '10.0.0.54:5300']);
    assert.deepEqual(seen.resolved, [null, ['10.0.0.1']]);
    assert.deepEqual(seen.instanceServers, ['10.0.0.99']);
    assert.deepEqual(shape(seen.invalid), shape(invalidReal));
    assert.deepEqual(seen.afterInvalid, ['10.0.0.99']);
    // Node keeps the default resolver dns.setServers made; its real channel was never changed.
    assert.deepEqual(dns.getServers(), before);
  });

  it('never sends a real query: every name outside the simulation is unknown, at virtual time 0', async function () {
    const seen = {};
    const sim = new Sim({ seed: 0xd8 });
    sim.client('tester', async () => {
      for (const name of ['example.com', 'localhost', '127.0.0.1', 'registry.npmjs.org']) {
        seen[name] = (await callback((done) => dns.resolve4(name, done)))[0]?.code;
      }
      seen.lookupExample = (await callback((done) => dns.lookup('example.com', done)))[0]?.code;
      seen.reversePublic = (await callback((done) => dns.reverse('8.8.8.8', done)))[0]?.code;
    });
    const result = await sim.run();
    assert.deepEqual(seen, {
      'example.com': 'ENOTFOUND',
      localhost: 'ENOTFOUND',
      '127.0.0.1': 'ENOTFOUND',
      'registry.npmjs.org': 'ENOTFOUND',
      lookupExample: 'ENOTFOUND',
      reversePublic: 'ENOTFOUND',
    });
    assert.equal(result.elapsedNs, 0);
  });

  it('answers in a later event, never synchronously, and the runner outside hosts gets the real resolver', async function () {
    let syncAnswer = true;
    let answer;
    let outside;
    const sim = new Sim({ seed: 0xd9 });
    sim.host('node-a.invalid', () => {});
    sim.client('tester', async () => {
      const done = callback((cb) => dns.resolve4('node-a.invalid', cb));
      syncAnswer = false;
      answer = await done;
    });
    const running = sim.run();
    // The test runner is outside every host: its query goes to the real resolver, which has
    // never heard of the simulated name.
    const outsideQuery = callback((done) => quickRealResolver().resolve4('node-a.invalid', done));
    await running;
    outside = await outsideQuery;
    assert.equal(syncAnswer, false);
    assert.deepEqual(answer, [null, ['10.0.0.1']]);
    assert.ok(outside[0] instanceof Error, 'the real resolver does not know simulated names');
    assert.notEqual(outside[0].code, undefined);
  });

  it('replays exactly: the same seed gives the same fingerprint', async function () {
    async function run(seed) {
      const answers = [];
      const sim = new Sim({ seed });
      for (const name of ['n1', 'n2', 'n3']) sim.host(name, () => {});
      sim.client('tester', async () => {
        for (const name of ['n1', 'n2', 'n3', 'n4']) {
          answers.push(await dns.promises.resolve4(name).catch((err) => err.code));
          answers.push(await new Promise((resolve) => dns.lookup(name, (err, address) => resolve(err?.code ?? address))));
          await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 10)));
        }
      });
      const result = await sim.run();
      return { answers, fingerprint: result.fingerprint, elapsedNs: result.elapsedNs };
    }
    const first = await run(0xda);
    const second = await run(0xda);
    const other = await run(0xdb);
    assert.deepEqual(first.answers, [
      ['10.0.0.1'], '10.0.0.1', ['10.0.0.2'], '10.0.0.2', ['10.0.0.3'], '10.0.0.3', 'ENOTFOUND', 'ENOTFOUND',
    ]);
    assert.deepEqual(second, first);
    assert.deepEqual(other.answers, first.answers);
    assert.notEqual(other.fingerprint, first.fingerprint);
  });

  describe('a Resolver pointed at a DNS server on a simulated host', function () {
    /** A DNS server on UDP port 53 of its host: one A record per known name, NXDOMAIN otherwise. */
    function dnsServer(zone, seen) {
      const socket = dgram.createSocket('udp4');
      socket.on('message', (query, rinfo) => {
        let at = 12;
        const labels = [];
        while (query[at] !== 0) {
          labels.push(query.toString('latin1', at + 1, at + 1 + query[at]));
          at += query[at] + 1;
        }
        const name = labels.join('.');
        seen.push(`${name} from ${rinfo.address}`);
        const address = zone[name];
        const header = Buffer.alloc(12);
        query.copy(header, 0, 0, 2);
        header.writeUInt16BE(address === undefined ? 0x8183 : 0x8180, 2);
        header.writeUInt16BE(1, 4);
        header.writeUInt16BE(address === undefined ? 0 : 1, 6);
        const answer = address === undefined ? [] : [Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 30, 0, 4, ...address.split('.').map(Number)])];
        socket.send(Buffer.concat([header, query.subarray(12, at + 5), ...answer]), rinfo.port, rinfo.address);
      });
      socket.bind(53);
    }

    async function run(seed) {
      const seen = [];
      const log = [];
      const sim = new Sim({ seed });
      sim.host('ns', () => dnsServer({ 'api.internal': '10.0.0.99' }, seen));
      sim.client('tester', async () => {
        const resolver = new dns.promises.Resolver({ timeout: 500, tries: 2 });
        resolver.setServers([sim.addressOf('ns').ipv4]);
        const attempt = async (label, name) => {
          const start = Date.now();
          const outcome = await resolver.resolve4(name).then((a) => a.join(), (e) => `${e.code} ${e.syscall} ${e.hostname}`);
          // A round trip takes a few ms of link latency (the seed's); timeouts are exact.
          const elapsed = Date.now() - start;
          log.push(`${label}: ${outcome} ${elapsed < 100 ? 'within a round trip' : `after ${elapsed} ms`}`);
        };
        await attempt('answered', 'api.internal');
        await attempt('unknown to the server', 'db.internal');
        // A host name of the simulation is the server's business now, not the simulation's.
        await attempt('a simulated host name', 'ns');
        sim.partition('ns', 'tester');
        await attempt('partitioned', 'api.internal');
        sim.repair('ns', 'tester');
        sim.kill('ns');
        await attempt('server process killed', 'api.internal');
        sim.restart('ns');
        await new Promise((resolve) => setTimeout(resolve, 10));
        await attempt('restarted', 'api.internal');
        sim.crash('ns');
        await attempt('server machine crashed', 'api.internal');
      });
      const result = await sim.run();
      return { seen, log, fingerprint: result.fingerprint };
    }

    it('sends the queries over the simulated network and answers from the replies, with faults', async function () {
      const first = await run(0xd5);
      assert.deepEqual(first.log, [
        'answered: 10.0.0.99 within a round trip',
        'unknown to the server: ENOTFOUND queryA db.internal within a round trip',
        'a simulated host name: ENOTFOUND queryA ns within a round trip',
        // Two tries: 500 ms, then 1000 (c-ares doubles the timeout for each round of servers).
        'partitioned: ETIMEOUT queryA api.internal after 1500 ms',
        // The machine is up without a socket on port 53: ICMP port unreachable, at once.
        'server process killed: ECONNREFUSED queryA api.internal within a round trip',
        'restarted: 10.0.0.99 within a round trip',
        // A machine that is off answers nothing, not even ICMP.
        'server machine crashed: ETIMEOUT queryA api.internal after 1500 ms',
      ]);
      // The partitioned tries never arrived; the restarted server saw its query.
      assert.deepEqual(first.seen, ['api.internal from 10.0.0.2', 'db.internal from 10.0.0.2', 'ns from 10.0.0.2', 'api.internal from 10.0.0.2']);
      const second = await run(0xd5);
      assert.deepEqual(second, first);
      const other = await run(0xd6);
      assert.deepEqual(other.log, first.log);
      assert.notEqual(other.fingerprint, first.fingerprint);
    });
  });

  describe("'localhost' on a simulated host: 127.0.0.1 only, like this project's reference machine", () => {
    /** What a program sees for localhost and ::1: the same code plainly and inside a host. */
    const PROBE = `async (dns) => {
      const ask = (fn) => new Promise((resolve) => fn((err, ...rest) => resolve(err ? err.code : rest)));
      return {
        plain: await ask((cb) => dns.lookup('localhost', cb)),
        v4: await ask((cb) => dns.lookup('localhost', { family: 4 }, cb)),
        v6: await ask((cb) => dns.lookup('localhost', { family: 6 }, cb)),
        all: await ask((cb) => dns.lookup('localhost', { all: true }, cb)),
        all6: await ask((cb) => dns.lookup('localhost', { all: true, family: 6 }, cb)),
        ipv6first: await ask((cb) => dns.lookup('localhost', { all: true, order: 'ipv6first' }, cb)),
        v4mapped: await ask((cb) => dns.lookup('localhost', { family: 6, hints: dns.V4MAPPED }, cb)),
        v4mappedAll: await ask((cb) => dns.lookup('localhost', { family: 6, hints: dns.V4MAPPED | dns.ALL, all: true }, cb)),
        v4mappedFamily4: await ask((cb) => dns.lookup('localhost', { family: 4, hints: dns.V4MAPPED }, cb)),
        service4: await ask((cb) => dns.lookupService('127.0.0.1', 22, cb)),
        service6: await ask((cb) => dns.lookupService('::1', 22, cb)),
      };
    }`;
    const EXPECTED = {
      plain: ['127.0.0.1', 4],
      v4: ['127.0.0.1', 4],
      v6: 'ENOTFOUND',
      all: [[{ address: '127.0.0.1', family: 4 }]],
      all6: 'ENOTFOUND',
      ipv6first: [[{ address: '127.0.0.1', family: 4 }]],
      // getaddrinfo's AI_V4MAPPED: an IPv6 lookup answers the IPv4 address mapped (it was ENOTFOUND).
      v4mapped: ['::ffff:127.0.0.1', 6],
      v4mappedAll: [[{ address: '::ffff:127.0.0.1', family: 6 }]],
      v4mappedFamily4: ['127.0.0.1', 4],
      service4: ['localhost', 'ssh'],
      service6: 'ENOTFOUND',
    };

    it('answers the same on every machine (the real /etc/hosts does not matter)', async () => {
      let seen;
      const sim = new Sim({ seed: 0xda });
      sim.client('c', async () => {
        seen = await (0, eval)(PROBE)(dns);
      });
      await sim.run();
      assert.deepEqual(seen, EXPECTED);
    });

    it('matches plain Node on a machine whose /etc/hosts maps localhost to 127.0.0.1 only (this one)', function () {
      const program = `const dns = require('node:dns'); (${PROBE})(dns).then((r) => process.stdout.write(JSON.stringify(r)));`;
      const plain = JSON.parse(execFileSync(process.execPath, ['-e', program], { encoding: 'utf8' }));
      if (plain.v6 !== 'ENOTFOUND') this.skip(); // this machine names ::1 localhost: the simulation does not follow it
      assert.deepEqual(plain, EXPECTED);
    });
  });
});
