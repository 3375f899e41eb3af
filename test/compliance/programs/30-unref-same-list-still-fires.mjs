// An unref'd timer due at the same time as a ref'd one, later in the same list, still fires in
// that pass even though the ref'd one was the last thing keeping the process alive.
const log = (...a) => console.log(...a);
setTimeout(() => log('ref timer'), 10);
setTimeout(() => log('unref timer in the same list'), 10).unref();
process.on('exit', () => log('exit'));
