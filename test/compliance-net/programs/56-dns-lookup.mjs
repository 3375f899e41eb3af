// dns.lookup of address literals and localhost (answered without any DNS server), and the
// error for a name that cannot exist (RFC 6761 .invalid).
import dns from 'node:dns';

const log = (...args) => console.log(...args);
const lookup = (...args) => new Promise((resolve) => dns.lookup(...args, (err, address, family) => resolve([err, address, family])));

log('127.0.0.1:', ...(await lookup('127.0.0.1')));
log('::1:', ...(await lookup('::1')));
log('::1 all:', JSON.stringify((await lookup('::1', { all: true }))[1]));
log('localhost v4:', ...(await lookup('localhost', { family: 4 })));
log('promises 10.1.2.3:', JSON.stringify(await dns.promises.lookup('10.1.2.3')));
const [err] = await lookup('nonexistent.invalid');
log('unknown:', err.constructor.name, err.syscall, err.hostname, ['ENOTFOUND', 'EAI_AGAIN'].includes(err.code),
  err.message === `getaddrinfo ${err.code} nonexistent.invalid`);
try {
  dns.lookup('x', { family: 5 }, () => {});
} catch (e) {
  log('bad family:', e.code);
}
process.on('exit', (code) => log('exit', code));
