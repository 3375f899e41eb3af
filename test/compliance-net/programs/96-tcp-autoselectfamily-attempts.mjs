// net.connect with a lookup that answers several addresses (autoSelectFamily, the default since
// Node 20): Node tries them in turn, moving on when an attempt fails or its attempt timer
// (autoSelectFamilyAttemptTimeout) fires. net.js arms that timer with the setTimeout it took
// when it loaded, before dst-runtime: the simulation adopts it, so it runs on virtual time.
// 1. The first address refuses (nobody listens on that port there): the next one connects.
// 2. The first address connects: its attempt timer is cleared, nothing more happens.
// 3. The first address never answers (a black hole): its attempt times out, the next connects.
//    Plainly 192.0.2.1 (TEST-NET-1) may also fail at once with ENETUNREACH or EHOSTUNREACH;
//    either way only the connect and the attempted addresses are printed.
import net from 'node:net';

const log = (...args) => console.log(...args);
const server = net.createServer((s) => s.end('hi'));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();

function connect(label, addresses) {
  return new Promise((resolve) => {
    const lookup = (hostname, options, cb) => {
      const all = addresses.map((address) => ({ address, family: net.isIP(address) }));
      process.nextTick(() => (options.all ? cb(null, all) : cb(null, all[0].address, all[0].family)));
    };
    const c = net.connect({ host: 'multi.test', port, lookup, autoSelectFamily: true, autoSelectFamilyAttemptTimeout: 250 });
    c.on('connect', () => log(label, 'connect', c.remoteAddress, 'attempted', c.autoSelectFamilyAttemptedAddresses.map((a) => a.replace(/:\d+$/, '')).join(' ')));
    c.on('error', (e) => log(label, 'error', e.code));
    c.on('close', resolve);
    c.resume();
  });
}

await connect('refused first:', ['127.0.0.2', '127.0.0.1']);
await connect('first connects:', ['127.0.0.1', '127.0.0.2']);
await connect('black hole first:', ['192.0.2.1', '127.0.0.1']);
server.close();
process.on('exit', (code) => log('exit', code));
