// process.kill(process.pid, ...) beyond a listener by name (95-self-signal.mjs): the errors
// Node's kill throws for bad arguments (nothing is sent), kill(pid, 0), one number reaching the
// listeners of each of its names (6 is SIGABRT and SIGIOT, 29 SIGIO and SIGPOLL; Node runs them
// in the order of its signal handles' addresses, which differs between 20 and 24, so they are
// printed sorted), a pid given as a string, a signal whose listener is removed before it
// arrives (dropped: it was caught when sent), and signals whose default action leaves Node
// running.
const heard = [];
const order = [];
for (const name of ['SIGIOT', 'SIGABRT', 'SIGIO', 'SIGPOLL']) process.on(name, (signal, number) => heard.push(`${name} listener: ${signal} ${number}`));
for (const [pid, signal] of [[process.pid, 'SIGFOO'], [process.pid, 99], [process.pid, -1], [process.pid, 'sigterm'], [process.pid, 1.5], ['abc', 'SIGTERM'], [1.5, 0]]) {
  try {
    order.push(`kill(${JSON.stringify(pid === process.pid ? 'own' : pid)}, ${JSON.stringify(signal)}) returned ${process.kill(pid, signal)}`);
  } catch (error) {
    order.push(`kill(${JSON.stringify(pid === process.pid ? 'own' : pid)}, ${JSON.stringify(signal)}): ${error.name} ${error.code} ${error.message}`);
  }
}
order.push(`kill(own, 0) returned ${process.kill(process.pid, 0)}`);
order.push(`kill(String(own), 0) returned ${process.kill(String(process.pid), 0)}`);
// Caught when sent (a listener was there), its listener removed before it arrives: dropped.
const removed = () => heard.push('removed listener ran');
process.on('SIGUSR2', removed);
process.kill(String(process.pid), 'SIGUSR2');
process.removeListener('SIGUSR2', removed);
process.kill(process.pid, 6);
process.kill(process.pid, 'SIGPOLL');
setTimeout(() => {
  order.push(...heard.sort());
  heard.length = 0;
  // No listeners: ignored by default, or by Node.
  for (const signal of ['SIGWINCH', 'SIGPIPE', 'SIGCHLD', 'SIGURG', 'SIGXFSZ', 'SIGCONT']) process.kill(process.pid, signal);
  setTimeout(() => {
    order.push('still running after SIGWINCH, SIGPIPE, SIGCHLD, SIGURG, SIGXFSZ, SIGCONT');
    for (const name of ['SIGIOT', 'SIGABRT', 'SIGIO', 'SIGPOLL']) process.removeAllListeners(name);
    console.log(order.join('\n'));
  }, 50);
}, 50);
