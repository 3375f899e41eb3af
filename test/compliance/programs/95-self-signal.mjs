// process.kill(process.pid, signal) with a listener: kill returns at once, and the listener runs
// later, with the signal's name and number, after this tick's nextTicks and before a 500 ms
// timer (500, not 50: a plain run on a loaded machine once started its loop more than 50 ms
// late). By name and by number alike. The listener sees the AsyncLocalStorage store of where
// the signal's first listener was added (Node makes the signal's wrap then), not the killer's. (Simulated in register mode the program's process is the
// real one: a signal sent for real would reach Node only when its loop polls, which a run that
// finishes in one loop phase never lets happen.)
import { AsyncLocalStorage } from 'node:async_hooks';

const als = new AsyncLocalStorage();
const order = [];
als.run('added', () => process.on('SIGUSR2', (signal, number) => order.push(`SIGUSR2 listener: ${signal} ${number} in ${als.getStore()}`)));
process.on('SIGHUP', (signal, number) => order.push(`SIGHUP listener: ${signal} ${number} in ${als.getStore()}`));
order.push(`kill by name returned ${als.run('killer', () => process.kill(process.pid, 'SIGUSR2'))}`);
process.nextTick(() => order.push('tick'));
setTimeout(() => {
  order.push('timer 500');
  order.push(`kill by number returned ${process.kill(process.pid, 1)}`);
  setTimeout(() => {
    order.push('timer 500 + 50');
    process.removeAllListeners('SIGUSR2');
    process.removeAllListeners('SIGHUP');
    console.log(order.join('\n'));
  }, 50);
}, 500);
