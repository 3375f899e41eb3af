// A bound socket keeps the process alive only while it is ref'd.
import dgram from 'node:dgram';

const log = (...args) => console.log(...args);
const idle = dgram.createSocket('udp4');
idle.bind(0, '127.0.0.1', () => {
  log('bound; unref');
  idle.unref();
  // An unref'd timer does not keep the process alive either.
  setTimeout(() => log('never printed'), 60_000).unref();
});

const busy = dgram.createSocket('udp4');
busy.bind(0, '127.0.0.1', () => {
  busy.unref().ref();
  log('busy: ref again');
  setTimeout(() => {
    log('busy: closing');
    busy.close();
  }, 50);
});
process.on('exit', (code) => log('exit', code));
