// process.kill(process.pid, signal) with a listener and nothing else keeping the loop alive: the
// process exits before its loop polls again, so the listener never runs (Node's signal wraps are
// unref'd) and a top-level await of it is unsettled (exit 13), on 20, 22 and 24 alike.
const got = new Promise((resolve) => process.on('SIGUSR2', resolve));
process.on('exit', (code) => console.log(`exit ${code}`));
process.kill(process.pid, 'SIGUSR2');
console.log('killed');
console.log(`got ${await got}`);
