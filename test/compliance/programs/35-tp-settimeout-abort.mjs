// timers/promises setTimeout rejects with an AbortError on abort; `cause` is the abort reason.
import { setTimeout as sleep } from 'node:timers/promises';
const log = (...a) => console.log(...a);
function show(label, err) {
  log(label, err.name, err.code, JSON.stringify(err.message), err instanceof Error, err.constructor.name);
  log('  stack head:', err.stack.split('\n')[0]);
  const c = err.cause;
  log('  cause:', c === undefined ? 'undefined' : `${c.name}: ${c.message}`);
}
{
  const ac = new AbortController();
  const p = sleep(1000, 'never', { signal: ac.signal });
  setTimeout(() => ac.abort(), 10);
  try {
    await p;
  } catch (err) {
    show('default reason:', err);
  }
}
{
  const ac = new AbortController();
  const reason = new Error('stop now');
  const p = sleep(1000, 'never', { signal: ac.signal });
  setTimeout(() => ac.abort(reason), 10);
  try {
    await p;
  } catch (err) {
    show('custom reason:', err);
    log('  cause is the reason', err.cause === reason);
  }
}
{
  const ac = new AbortController();
  ac.abort('already');
  try {
    await sleep(5, 'x', { signal: ac.signal });
  } catch (err) {
    show('already aborted:', err);
    log('  cause value', JSON.stringify(err.cause));
  }
}
{
  const ac = new AbortController();
  const v = await sleep(5, 'resolved value', { signal: ac.signal });
  ac.abort();
  log('resolved before abort:', v);
}
log('end');
