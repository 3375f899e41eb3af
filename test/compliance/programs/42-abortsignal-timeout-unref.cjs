'use strict';
// AbortSignal.timeout does not keep the process alive: with nothing else pending the process
// exits before the signal aborts.
const log = (...a) => console.log(...a);
const s = AbortSignal.timeout(50);
s.addEventListener('abort', () => log('aborted (must not happen)'));
process.on('exit', (code) => log('exit', code, 'aborted', s.aborted));
log('sync done');
