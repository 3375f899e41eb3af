// Event#timeStamp reads the clock performance.now() reads: Node stamps an event with its internal
// performance clock; inside the simulation that is virtual, and events are stamped with it.
// (Found by Node's EventTarget tests: the simulator gave the real clock's reading.)
performance.now(); // load perf_hooks first
const et = new EventTarget();
et.addEventListener('ping', (e) => {
  const lag = performance.now() - e.timeStamp;
  console.log('ping: performance.now() - event.timeStamp within [0, 50) ms:', lag >= 0 && lag < 50);
});
setTimeout(() => et.dispatchEvent(new Event('ping')), 1000);
const ac = new AbortController();
ac.signal.addEventListener('abort', (e) => {
  const lag = performance.now() - e.timeStamp;
  console.log('abort: performance.now() - event.timeStamp within [0, 50) ms:', lag >= 0 && lag < 50);
  console.log('abort event created at least 1900 ms after start:', e.timeStamp >= 1900);
});
setTimeout(() => ac.abort(), 2000);
