// process.on is process.addListener and process.off is process.removeListener (EventEmitter's
// prototype has one function for each pair), named as Node names them. The simulator's per-host
// wrappers were two functions, named on and off.
console.log(process.on === process.addListener, process.off === process.removeListener);
console.log(process.on.name, process.off.name, process.once.name, process.listenerCount.name);
