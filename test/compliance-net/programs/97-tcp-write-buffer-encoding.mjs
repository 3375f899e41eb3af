// (Found by Node's test-stream-base-typechecking; the simulator threw Buffer.from's message, and ERR_UNKNOWN_ENCODING from uncork.)
// A string written with encoding 'buffer' on a TCP socket (Writable accepts 'buffer' as an
// encoding; net.Socket keeps strings as they are, decodeStrings: false):
//  (1) alone: Node's native writeBuffer throws ERR_INVALID_ARG_TYPE 'Second argument must be a buffer';
//  (2) corked with another write: Node's native writev encodes it (as latin1) and sends it.
import net from 'node:net';
const server = net.createServer((s) => {
  s.on('error', () => {});
  s.on('data', (d) => console.log('server got', JSON.stringify(d.toString('latin1'))));
  s.on('end', () => s.end());
}).listen(0, () => {
  const c1 = net.connect(server.address().port, () => {
    try {
      c1.write('broken', 'buffer');
      console.log('(1) no throw');
    } catch (e) {
      console.log('(1)', e.name, e.code, e.message);
    }
    c1.destroy();
    const c2 = net.connect(server.address().port, () => {
      c2.cork();
      try {
        // Node 24 refuses the encoding here already (ERR_UNKNOWN_ENCODING), 20 and 22 take it.
        c2.write('ab', 'buffer');
      } catch (e) {
        console.log('(2) write threw', e.code);
      }
      c2.write('cd', 'latin1');
      try {
        c2.uncork();
        console.log('(2) uncork ok');
      } catch (e) {
        console.log('(2) uncork threw', e.code, e.message);
      }
      c2.end();
      c2.resume();
      c2.on('close', () => { console.log('(2) closed'); server.close(); });
    });
  });
});
process.on('exit', (code) => console.log('exit', code));
