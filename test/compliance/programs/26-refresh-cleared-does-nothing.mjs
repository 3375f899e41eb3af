// refresh() on a cleared timer does nothing: it never fires, and it does not keep the process
// alive.
const log = (...a) => console.log(...a);
const t = setTimeout(() => log('t fired (must not happen)'), 5);
clearTimeout(t);
const same = t.refresh();
log('refresh returns the handle', same === t, 'destroyed', t._destroyed);
const i = setInterval(() => log('interval fired (must not happen)'), 5);
clearInterval(i);
i.refresh();
setTimeout(() => {
  t.refresh();
  log('refreshed again at 20');
}, 20);
process.on('exit', (code) => log('exit', code));
