// AsyncLocalStorage context flows into timers, immediates, intervals and timers/promises.
import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
const als = new AsyncLocalStorage();
const log = (...a) => console.log(...a);
log('top level sees', als.getStore());
als.run('ctx-A', () => {
  process.nextTick(() => log('nextTick sees', als.getStore()));
  setImmediate(() => {
    log('immediate sees', als.getStore());
    setTimeout(() => {
      log('timeout sees', als.getStore());
      let n = 0;
      const iv = setInterval(() => {
        n++;
        log('interval', n, 'sees', als.getStore());
        if (n === 2) {
          clearInterval(iv);
          phaseB();
        }
      }, 15);
    }, 10);
  });
});
function phaseB() {
  als.run('ctx-B', async () => {
    await sleep(50);
    log('after await sleep sees', als.getStore());
    als.run('ctx-C', () => setTimeout(() => log('nested run sees', als.getStore()), 5));
    log('back outside nested run', als.getStore());
  });
  log('phaseB caller sees', als.getStore());
}
