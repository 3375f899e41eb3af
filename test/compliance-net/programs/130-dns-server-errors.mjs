// A Resolver pointed at DNS servers the program runs itself, when things go wrong: each response
// code, a reply with no answer, a malformed reply (retried at once, then EBADRESP), a silent
// server and a reply with the wrong id (tries, then ETIMEOUT), a truncated reply, a closed port
// (ECONNREFUSED; the next server is asked), cancel() in flight, setServers() with a query in
// flight, a bad name, no servers at all, and a reverse lookup the server cannot answer. Printed:
// each outcome and how many queries each server saw (no timing: real c-ares jitters its timeouts).
import dgram from 'node:dgram';
import dns from 'node:dns';

const log = (...args) => console.log(...args);
const u16 = (n) => Buffer.from([n >> 8, n & 255]);

/** A server that answers each query by `behave(name, type)`: a flags word, or 'silent', 'bad', 'wrong-id'. */
async function server(behave) {
  const socket = dgram.createSocket('udp4');
  const state = { socket, queries: 0 };
  socket.on('message', (query, rinfo) => {
    state.queries++;
    let at = 12;
    const labels = [];
    while (query[at] !== 0) {
      labels.push(query.toString('latin1', at + 1, at + 1 + query[at]));
      at += query[at] + 1;
    }
    const name = labels.join('.');
    const action = behave(name, query.readUInt16BE(at + 1));
    if (action === 'silent') return;
    const id = query.readUInt16BE(0) ^ (action === 'wrong-id' ? 1 : 0);
    const flags = typeof action === 'number' ? action : 0x8180;
    // An A record for every query that succeeds, whatever type it asked (resolveMx of ok.test
    // gets a reply with an A record only).
    const answer = (flags === 0x8180 || flags === 0x8380) && action !== 'empty' ? Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 7]) : Buffer.alloc(0);
    // 'bad': the header claims 512 answers (as Node's test-dns-resolveany-bad-ancount writes).
    const ancount = action === 'bad' ? 512 : answer.length > 0 ? 1 : 0;
    const header = Buffer.concat([u16(id), u16(flags), u16(1), u16(ancount), u16(0), u16(0)]);
    socket.send(Buffer.concat([header, query.subarray(12, at + 5), answer]), rinfo.port, rinfo.address);
  });
  await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve));
  state.address = `127.0.0.1:${socket.address().port}`;
  return state;
}

const RCODES = { 'ok.test': 0x8180, 'formerr.test': 0x8181, 'servfail.test': 0x8182, 'nx.test': 0x8183, 'notimp.test': 0x8184, 'refused.test': 0x8185, 'empty.test': 0x8180 };
const main = await server((name, type) => {
  if (name === 'empty.test') return 'empty';
  if (name === '98.2.0.192.in-addr.arpa') return 0x8180;
  return RCODES[name] ?? { 'bad.test': 'bad', 'silent.test': 'silent', 'wrong-id.test': 'wrong-id', 'tc.test': 0x8380 }[name] ?? 0x8183;
});
const silent = await server(() => 'silent');
const closed = dgram.createSocket('udp4');
await new Promise((resolve) => closed.bind(0, '127.0.0.1', resolve));
const closedAddress = `127.0.0.1:${closed.address().port}`;
await new Promise((resolve) => closed.close(resolve));

const outcome = (promise) => promise.then((value) => `ok ${JSON.stringify(value)}`, (err) => `${err.code} ${err.syscall} ${err.hostname}`);
function resolver(servers, options = {}) {
  const r = new dns.promises.Resolver({ timeout: 20, tries: 2, ...options });
  r.setServers(servers);
  return r;
}
async function counted(label, servers, run) {
  const before = servers.map((s) => s.queries);
  const result = await run();
  log(label, '->', result, '| queries', servers.map((s, i) => s.queries - before[i]).join('/'));
}

for (const name of Object.keys(RCODES)) {
  await counted(`resolve4 ${name}`, [main], () => outcome(resolver([main.address]).resolve4(name)));
}
for (const method of ['resolveMx', 'resolveNs', 'resolveTxt', 'resolveSrv', 'resolvePtr', 'resolveNaptr', 'resolveSoa', 'resolveCaa', 'resolveCname', 'resolve6']) {
  await counted(`${method} ok.test, a reply with an A record only`, [main], () => outcome(resolver([main.address])[method]('ok.test')));
}
await counted('reverse, a reply with an A record only', [main], () => outcome(resolver([main.address]).reverse('192.0.2.98')));
await counted('resolve4 bad.test, tries 3', [main], () => outcome(resolver([main.address], { tries: 3 }).resolve4('bad.test')));
await counted('resolveAny bad.test', [main], () => outcome(resolver([main.address]).resolveAny('bad.test')));
await counted('resolve4 silent.test, tries 3', [main], () => outcome(resolver([main.address], { tries: 3 }).resolve4('silent.test')));
await counted('resolve4 wrong-id.test', [main], () => outcome(resolver([main.address]).resolve4('wrong-id.test')));
await counted('resolve4 tc.test', [main], () => outcome(resolver([main.address]).resolve4('tc.test')));
await counted('resolve4 via a closed port', [main], () => outcome(resolver([closedAddress]).resolve4('ok.test')));
await counted('resolve4, closed port first', [main], () => outcome(resolver([closedAddress, main.address]).resolve4('ok.test')));
await counted('resolve4, silent server first, tries 2', [silent, main], () => outcome(resolver([silent.address, main.address]).resolve4('ok.test')));
await counted('resolve4, silent server only, tries 1', [silent], () => outcome(resolver([silent.address], { tries: 1 }).resolve4('ok.test')));
await counted('reverse, server says NXDOMAIN', [main], () => outcome(resolver([main.address]).reverse('192.0.2.99')));
await counted('reverse, closed port', [main], () => outcome(resolver([closedAddress]).reverse('192.0.2.99')));
await counted('resolve4 a..b', [main], () => outcome(resolver([main.address]).resolve4('a..b')));
await counted('resolve4 with no servers', [main], () => outcome(resolver([]).resolve4('ok.test')));

// cancel() with the query in flight at a silent server.
{
  const r = new dns.Resolver({ timeout: 1000, tries: 4 });
  r.setServers([silent.address]);
  const before = silent.queries;
  const done = new Promise((resolve) => r.resolve4('cancelled.test', (err) => resolve(`${err.code} ${err.syscall} ${err.hostname}`)));
  await new Promise((resolve) => silent.socket.once('message', resolve));
  r.cancel();
  log('cancel in flight ->', await done, '| queries', silent.queries - before);
  // setServers() while a query is in flight throws; the query goes on.
  const pending = new Promise((resolve) => r.resolve4('pending.test', (err) => resolve(err.code)));
  try {
    r.setServers([main.address]);
    log('setServers in flight: no error');
  } catch (err) {
    log('setServers in flight ->', err.code, err.message.replace(/\d+/g, 'N'));
  }
  log('servers still', JSON.stringify(r.getServers()).replace(/\d+\]/g, 'N]').replace(/:\d+/g, ':N'));
  r.cancel();
  log('pending query ->', await pending);
}

main.socket.close();
silent.socket.close();
process.on('exit', (code) => log('exit', code));
