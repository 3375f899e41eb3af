// The delay is converted to a number exactly once per call, even for intervals.
const log = (...a) => console.log(...a);
let calls = 0;
const delay = {
  valueOf() {
    calls++;
    return 5;
  },
};
const t = setTimeout(() => {
  log('timeout fired; valueOf calls so far', calls);
}, delay);
log('after setTimeout', calls);
let n = 0;
setInterval(function () {
  n++;
  if (n === 3) {
    clearInterval(this);
    log('interval fired 3 times; valueOf calls', calls);
  }
}, delay);
log('after setInterval', calls);
void t;
