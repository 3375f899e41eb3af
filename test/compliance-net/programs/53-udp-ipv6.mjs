// IPv6 on ::1, and a dual-stack '::' socket that receives IPv4 as ::ffff: addresses.
import dgram from 'node:dgram';
import { once } from 'node:events';

const log = (...args) => console.log(...args);

const six = dgram.createSocket('udp6');
await new Promise((resolve) => six.bind(0, '::1', resolve));
log('six:', six.address().address, six.address().family);
const sixClient = dgram.createSocket('udp6');
sixClient.send('hello six', six.address().port, '::1');
const [msg, rinfo] = await once(six, 'message');
log('six got:', String(msg), rinfo.address, rinfo.family, rinfo.size, rinfo.port === sixClient.address().port);
log('six client:', sixClient.address().address);

const dual = dgram.createSocket('udp6');
await new Promise((resolve) => dual.bind(0, resolve));
log('dual:', dual.address().address, dual.address().family);
const four = dgram.createSocket('udp4');
four.send('hello dual', dual.address().port, '127.0.0.1');
const [dmsg, dinfo] = await once(dual, 'message');
log('dual got:', String(dmsg), dinfo.address, dinfo.family, dinfo.port === four.address().port);
dual.send('back', dinfo.port, dinfo.address);
const [bmsg, binfo] = await once(four, 'message');
log('four got:', String(bmsg), binfo.address, binfo.family, binfo.port === dual.address().port);

const taken = dgram.createSocket('udp4');
taken.bind(dual.address().port);
const [err] = await once(taken, 'error');
log('udp4 on the dual-stack port:', err.code, err.syscall, err.address);
const v6only = dgram.createSocket({ type: 'udp6', ipv6Only: true });
await new Promise((resolve) => v6only.bind(four.address().port, resolve));
log('ipv6Only on the udp4 port:', v6only.address().port === four.address().port);

for (const s of [six, sixClient, dual, four, taken, v6only]) s.close();
process.on('exit', (code) => log('exit', code));
