// Linux takes a connect or datagram to the unspecified address (0.0.0.0, ::) for loopback:
// net.connect(server.address().port, server.address().address) works, and both ends see
// 127.0.0.1 or ::1. (The simulator sent such a SYN to nobody: ETIMEDOUT after 30 s.)
import net from 'node:net';
import dgram from 'node:dgram';
for (const [listenAt, connectTo] of [['0.0.0.0', '0.0.0.0'], ['::', '::'], ['::', '0.0.0.0'], ['127.0.0.1', '0.0.0.0'], ['::1', '::']]) {
  await new Promise((resolve) => {
    const server = net.createServer((s) => { console.log('  server sees', s.remoteAddress, s.remoteFamily, s.localAddress); s.end('hi'); });
    server.listen(0, listenAt, () => {
      const c = net.connect(server.address().port, connectTo);
      c.on('connect', () => console.log(listenAt, connectTo, 'client', c.remoteAddress, c.remoteFamily, c.localAddress));
      c.on('error', (e) => { console.log(listenAt, connectTo, 'error', e.code); server.close(resolve); });
      c.on('close', () => server.close(resolve));
      c.resume();
    });
  });
}
for (const [bindAt, sendTo, fam] of [['127.0.0.1', '0.0.0.0', 'udp4'], ['0.0.0.0', '0.0.0.0', 'udp4'], ['::1', '::', 'udp6'], ['::', '::', 'udp6']]) {
  await new Promise((resolve) => {
    const r = dgram.createSocket(fam);
    r.bind(0, bindAt, () => {
      const s = dgram.createSocket(fam);
      r.on('message', (m, rinfo) => { console.log('udp', bindAt, sendTo, 'got from', rinfo.address); r.close(); s.close(); resolve(); });
      s.send('x', r.address().port, sendTo, (err) => { if (err) { console.log('udp', bindAt, sendTo, 'err', err.code); r.close(); s.close(); resolve(); } });
      setTimeout(() => { console.log('udp', bindAt, sendTo, 'nothing'); try { r.close(); s.close(); } catch {} resolve(); }, 200).unref();
    });
  });
}
process.on('exit', (code) => console.log('exit', code));
