// Node emits an uncaught error in the async context of the callback that threw it, so an
// 'uncaughtException' listener sees that callback's AsyncLocalStorage store (a request id in a
// crash log). The simulator had left the callback's context already: every store was undefined.
const { AsyncLocalStorage } = require('node:async_hooks');
const als = new AsyncLocalStorage();
const seen = [];
process.on('uncaughtException', (error) => seen.push(`${error.message}: ${als.getStore()}`));
als.run('req-1', () => setTimeout(() => { throw new Error('timer'); }, 1));
als.run('req-2', () => setImmediate(() => { throw new Error('immediate'); }));
als.run('req-3', () => require('node:fs').stat(__filename, () => { throw new Error('fs'); }));
process.on('exit', () => console.log(seen.sort().join('\n')));
