// A Resolver pointed at a DNS server the program runs itself on a dgram socket (as Node's own
// dns tests do): the query c-ares sends, and every record type it reads back, in the shapes of
// resolve4/6 (with TTLs, through a CNAME), resolveCname, Mx, Ns, Txt, Srv, Ptr, Naptr, Soa, Caa,
// Tlsa (where Node has it), resolveAny and reverse, over IPv4 and IPv6, callbacks and promises.
import dgram from 'node:dgram';
import dns from 'node:dns';

const TYPE = { A: 1, NS: 2, CNAME: 5, SOA: 6, PTR: 12, MX: 15, TXT: 16, AAAA: 28, SRV: 33, NAPTR: 35, TLSA: 52, ANY: 255, CAA: 257 };
const log = (...args) => console.log(...args);

const u16 = (n) => Buffer.from([n >> 8, n & 255]);
const u32 = (n) => Buffer.from([n >>> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255]);
const str = (s) => Buffer.concat([Buffer.from([Buffer.byteLength(s)]), Buffer.from(s)]);
const dname = (n) => Buffer.concat([...n.split('.').map(str), Buffer.from([0])]);
const v4 = (a) => Buffer.from(a.split('.').map(Number));
function v6(a) {
  const [head, tail = ''] = a.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return Buffer.concat(groups.map((g) => u16(parseInt(g, 16))));
}

// The zone: owner -> [type, ttl, rdata][]; 'alias' points at 'example.test'.
const records = {
  'example.test': [
    [TYPE.A, 60, v4('192.0.2.1')],
    [TYPE.A, 30, v4('192.0.2.2')],
    [TYPE.AAAA, 60, v6('2001:db8::1')],
    [TYPE.AAAA, 60, v6('0:0:0:0:0:ffff:c000:203')],
    [TYPE.MX, 300, Buffer.concat([u16(10), dname('mail.example.test')])],
    [TYPE.MX, 300, Buffer.concat([u16(20), dname('mx2.example.test')])],
    [TYPE.NS, 300, dname('ns1.example.test')],
    [TYPE.NS, 300, dname('ns2.example.test')],
    [TYPE.TXT, 300, Buffer.concat([str('v=spf1 ~all'), str('second chunk')])],
    [TYPE.TXT, 300, str('another')],
    [TYPE.SRV, 300, Buffer.concat([u16(1), u16(5), u16(5060), dname('sip.example.test')])],
    [TYPE.NAPTR, 300, Buffer.concat([u16(100), u16(10), str('S'), str('SIP+D2U'), str(''), dname('_sip._udp.example.test')])],
    [TYPE.SOA, 300, Buffer.concat([dname('ns1.example.test'), dname('admin.example.test'), u32(2024010101), u32(7200), u32(900), u32(1209600), u32(86400)])],
    [TYPE.CAA, 300, Buffer.concat([Buffer.from([0]), str('issue'), Buffer.from('ca.example.net')])],
    [TYPE.CAA, 300, Buffer.concat([Buffer.from([128]), str('iodef'), Buffer.from('mailto:sec@example.test')])],
    [TYPE.TLSA, 300, Buffer.from([3, 1, 1, 0xde, 0xad, 0xbe, 0xef])],
  ],
  'alias.example.test': [[TYPE.CNAME, 20, dname('example.test')]],
  '1.2.0.192.in-addr.arpa': [[TYPE.PTR, 300, dname('host.example.test')], [TYPE.PTR, 300, dname('other.example.test')]],
  '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa': [[TYPE.PTR, 300, dname('v6host.example.test')]],
};

function reply(query) {
  let at = 12;
  const labels = [];
  while (query[at] !== 0) {
    labels.push(query.toString('latin1', at + 1, at + 1 + query[at]));
    at += query[at] + 1;
  }
  const qname = labels.join('.');
  const qtype = query.readUInt16BE(at + 1);
  const question = query.subarray(12, at + 5);
  const owners = [qname];
  // A CNAME answer carries the target's records of the type asked, as a recursive server sends.
  const cname = (records[qname.toLowerCase()] ?? []).find(([t]) => t === TYPE.CNAME);
  if (cname && qtype !== TYPE.CNAME) owners.push('example.test');
  const answers = [];
  for (const [i, owner] of owners.entries()) {
    for (const [type, ttl, rdata] of records[owner.toLowerCase()] ?? []) {
      if (qtype !== TYPE.ANY && type !== qtype && type !== TYPE.CNAME) continue;
      // The first owner by a compression pointer to the question's name.
      const ownerBytes = i === 0 ? Buffer.from([0xc0, 0x0c]) : dname(owner);
      answers.push(Buffer.concat([ownerBytes, u16(type), u16(1), u32(ttl), u16(rdata.length), rdata]));
    }
  }
  const known = records[qname.toLowerCase()] !== undefined;
  const header = Buffer.concat([u16(query.readUInt16BE(0)), u16(known ? 0x8180 : 0x8183), u16(1), u16(answers.length), u16(0), u16(0)]);
  return { qname, qtype, message: Buffer.concat([header, question, ...answers]) };
}

async function server(type, address) {
  const socket = dgram.createSocket(type);
  const seen = [];
  socket.on('message', (query, rinfo) => {
    const { qname, qtype, message } = reply(query);
    const counts = [4, 6, 8, 10].map((o) => query.readUInt16BE(o)).join('/');
    seen.push(`flags=${query.readUInt16BE(2).toString(16)} counts=${counts} type=${qtype} class=${query.readUInt16BE(query.length - 2)} name=${qname} from=${rinfo.address} size=${query.length}`);
    socket.send(message, rinfo.port, rinfo.address);
  });
  await new Promise((resolve) => socket.bind(0, address, resolve));
  return { socket, seen, server: type === 'udp6' ? `[${address}]:${socket.address().port}` : `${address}:${socket.address().port}` };
}

const show = (value) => JSON.stringify(value, (_k, v) => (v instanceof ArrayBuffer ? `ArrayBuffer(${Buffer.from(v).toString('hex')})` : v));
const four = await server('udp4', '127.0.0.1');
const six = await server('udp6', '::1');

const resolver = new dns.Resolver({ timeout: 1000, tries: 1 });
resolver.setServers([four.server]);
const call = (method, ...args) =>
  new Promise((resolve) => resolver[method](...args, (err, result) => resolve(err ? `${err.code} ${err.syscall} ${err.hostname}` : show(result))));
for (const [method, ...args] of [
  ['resolve4', 'example.test'],
  ['resolve4', 'example.test', { ttl: true }],
  ['resolve6', 'example.test', { ttl: true }],
  ['resolve4', 'alias.example.test', { ttl: true }],
  ['resolveCname', 'alias.example.test'],
  ['resolveMx', 'example.test'],
  ['resolveNs', 'example.test'],
  ['resolveTxt', 'example.test'],
  ['resolveSrv', 'example.test'],
  ['resolveNaptr', 'example.test'],
  ['resolveSoa', 'example.test'],
  ['resolveCaa', 'example.test'],
  ['resolvePtr', '1.2.0.192.in-addr.arpa'],
  ['resolveAny', 'example.test'],
  ['resolveAny', 'alias.example.test'],
  ['resolve', 'EXAMPLE.test.', 'MX'],
  ['reverse', '192.0.2.1'],
  ['reverse', '2001:db8::1'],
  ['resolve4', 'missing.example.test'],
]) {
  log(method, show(args), '->', await call(method, ...args));
}
if (typeof resolver.resolveTlsa === 'function') log('resolveTlsa ->', await call('resolveTlsa', 'example.test'));

const promises = new dns.promises.Resolver({ timeout: 1000, tries: 1 });
promises.setServers([six.server]);
log('promises over IPv6: resolve4', show(await promises.resolve4('example.test')));
log('promises over IPv6: resolveMx', show(await promises.resolveMx('example.test')));
log('promises over IPv6: resolveSoa', show(await promises.resolveSoa('example.test')));
log('promises over IPv6: missing', await promises.resolveNs('missing.example.test').catch((e) => `${e.code} ${e.syscall} ${e.hostname}`));

// The default resolver, once dns.setServers names the program's server.
dns.setServers([four.server]);
log('dns.resolve4', show(await new Promise((resolve, reject) => dns.resolve4('example.test', (e, a) => (e ? reject(e) : resolve(a))))));
log('dns.promises.resolveTxt', show(await dns.promises.resolveTxt('example.test')));

log('queries seen over IPv4:');
for (const line of four.seen) log(' ', line.replace(/from=127\.0\.0\.1/, 'from=loopback'));
log('queries seen over IPv6:');
for (const line of six.seen) log(' ', line.replace(/from=::1/, 'from=loopback'));
four.socket.close();
six.socket.close();
process.on('exit', (code) => log('exit', code));
