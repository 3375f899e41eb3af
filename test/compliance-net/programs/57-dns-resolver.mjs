// The resolver API where real Node's answer does not depend on a DNS server: synchronous
// errors, cancel(), server lists; and the shape of the error for a name that cannot exist.
import dns from 'node:dns';

const log = (...args) => console.log(...args);

try {
  dns.reverse('not-an-ip', () => {});
} catch (err) {
  log('reverse:', err.constructor.name, err.code, err.errno, err.syscall, err.hostname, err.message);
}
try {
  dns.resolve('example.invalid', 'BOGUS', () => {});
} catch (err) {
  log('rrtype:', err.code);
}

const resolver = new dns.Resolver({ timeout: 1_000, tries: 1 });
let sync = true;
const cancelled = new Promise((resolve) => resolver.resolve4('nonexistent.invalid', (err, addresses) => resolve([sync, err, addresses])));
resolver.cancel();
sync = false;
const [wasSync, err, addresses] = await cancelled;
log('cancel:', wasSync, err.code, err.syscall, err.hostname, err.message, addresses);

const promises = new dns.promises.Resolver({ timeout: 1_000, tries: 1 });
const pending = promises.resolve6('nonexistent.invalid').catch((e) => e);
promises.cancel();
const perr = await pending;
log('promises cancel:', perr.code, perr.message);

resolver.setServers(['127.0.0.1', '[::1]:5353', '10.0.0.53:5300']);
log('servers:', JSON.stringify(resolver.getServers()));
try {
  resolver.setServers(['not an address']);
} catch (e) {
  log('bad server:', e.code, e.message);
}
log('servers kept:', JSON.stringify(resolver.getServers()));

const unknown = await new Promise((resolve) => new dns.Resolver({ timeout: 1_000, tries: 1 }).resolve4('nonexistent.invalid', (e) => resolve(e)));
log('unknown:', unknown.syscall, unknown.hostname, unknown.message.startsWith('queryA '), unknown.errno);
const any = await new dns.promises.Resolver({ timeout: 1_000, tries: 1 }).resolveAny('nonexistent.invalid').catch((e) => e);
log('unknown any:', any.syscall, any.hostname, any.message.startsWith('queryAny '));
process.on('exit', (code) => log('exit', code));
