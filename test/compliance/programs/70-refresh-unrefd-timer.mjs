// refresh() keeps a timer's ref state: a refreshed unref'd timer does not keep the process
// alive, and a fired unref'd timer revived by refresh() does not either.
const log = (...a) => console.log(...a);
const w = setTimeout(() => log('w fired'), 5).unref();
setTimeout(() => {
  log("keeper fired; reviving unref'd w");
  w.refresh();
  log('w hasRef', w.hasRef(), 'destroyed', w._destroyed);
  const u = setTimeout(() => log('u fired (must not)'), 1);
  u.unref();
  u.refresh();
  log('u hasRef after refresh', u.hasRef());
}, 20);
process.on('exit', (code) => log('exit', code));
