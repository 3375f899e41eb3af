// dst-runtime keeps what it records about the program's servers and sockets (where they were
// made) beside them, not on them: console.log, Object.assign and getOwnPropertySymbols of a
// server, a socket or a dgram socket show what they show plainly.
import dgram from 'node:dgram';
import net from 'node:net';
import util from 'node:util';

const names = (obj) => [
  ...Object.keys(obj),
  ...Object.getOwnPropertySymbols(obj).map(String),
].filter((k) => !k.startsWith('_') || k === '_handle').sort().join(',');
const server = net.createServer();
server.listen(0, '127.0.0.1', () => {
  const client = net.connect(server.address().port, '127.0.0.1', () => {
    const udp = dgram.createSocket('udp4');
    udp.bind(0, '127.0.0.1', () => {
      for (const [name, obj] of [['server', server], ['client', client], ['udp', udp]]) {
        console.log(name, names(obj));
        console.log(name, 'assign copies', Object.getOwnPropertySymbols(Object.assign({}, obj)).length, 'symbols');
        console.log(name, 'inspect mentions dst:', /dst/i.test(util.inspect(obj, { depth: 0, showHidden: true })));
      }
      udp.close();
      client.destroy();
      server.close();
    });
  });
});
process.on('exit', (code) => console.log('exit', code));
