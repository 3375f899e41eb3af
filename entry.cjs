'use strict';
// dist/index.cjs, dst-runtime's main entry: copied by the build from entry.cjs.
//
// The runtime itself (dist/runtime.cjs) must run in Node's own realm. Jest, and Vitest's
// vmThreads and vmForks pools, evaluate a test file's modules (node_modules too) in a vm context
// of their own, with its own Date, Math, Promise and Error; Jest gives it a copy of `process`
// on which Node never emits an event, and both replace node:module with a stand-in whose
// register() throws. Evaluated there, the runtime would listen for uncaught exceptions where
// none arrive, could not load module hosts, and would be a new instance for every test file,
// each with its own caches of process-wide state. So, from such a context, this file loads the
// runtime with Node's own require, which evaluates it once per process in Node's realm, and
// registers the context, whose own globals the shims then simulate too (runtime/realms.ts).
const vm = require('node:vm');

// vm.runInThisContext runs its code in Node's main context, whichever context calls it.
const nodeGlobal = vm.runInThisContext('globalThis');

if (nodeGlobal === globalThis) {
  module.exports = require('./runtime.cjs');
} else {
  const nodeRequire = nodeRequireFor(nodeGlobal.process);
  nodeRequire('./realm.cjs').addRealm(globalThis);
  module.exports = nodeRequire('./runtime.cjs');
}

/** A require of Node's own loader, which evaluates modules in Node's realm. */
function nodeRequireFor(nodeProcess) {
  // Node's process, not the context's: Jest routes its copy's getBuiltinModule through its own
  // module registry, which hands out its stand-in for node:module.
  const Module =
    typeof nodeProcess.getBuiltinModule === 'function' ? nodeProcess.getBuiltinModule('module') : nodeProcess.mainModule?.constructor;
  if (typeof Module?.createRequire !== 'function') {
    throw new Error(
      'Failed to load dst-runtime: this test runner evaluates test files in a vm context of its own, and dst-runtime ' +
        'loads itself outside it with process.getBuiltinModule, which this Node lacks. Use Node 20.16, 22.3 or later.',
    );
  }
  return Module.createRequire(__filename);
}
