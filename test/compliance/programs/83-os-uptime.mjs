// os.uptime() is the machine's uptime in seconds (two decimals at most, from /proc/uptime on
// Linux), moving with time: inside the simulation, with the host's clock.
import os, { uptime } from 'node:os';

const start = os.uptime();
console.log('two decimals at most:', /^\d+(\.\d{1,2})?$/.test(String(start)));
console.log('named import is os.uptime:', uptime === os.uptime);
console.log('at least process.uptime():', start >= process.uptime());
console.log('template literal reads it:', Math.abs(Number(`${os.uptime}`) - start) < 1);
console.log('shape:', os.uptime.name, os.uptime.length, typeof os.uptime.withoutStackTrace, typeof os.uptime[Symbol.toPrimitive]);
setTimeout(() => {
  const moved = os.uptime() - start;
  console.log('moved with a 1500 ms timer:', moved >= 1.49 && moved < 10);
}, 1500);
