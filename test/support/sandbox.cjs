// A vm context that evaluates CommonJS modules as Jest 30 does (jest-environment-node and
// jest-runtime), for tests of what dst-runtime does when a test runner loads it from a test
// file's own context: nothing about Jest is installed, only the conditions that matter.
//
// - The context has its own intrinsics (Date, Math, Promise, Error, Intl, WebAssembly, ...);
//   Node's other globals (setTimeout, queueMicrotask, performance, crypto, fetch, ...) are copied
//   into it on first read, as jest-environment-node's lazy getters do.
// - `process` is a copy of Node's with its own events (jest-util's createProcessObject): Node
//   never emits on it. Its getBuiltinModule goes through the context's require (jest-runtime).
// - require('node:module') is a stand-in whose register() and registerHooks() throw (Jest's
//   message; Vitest's vm pools do the same with theirs). Other builtins are Node's own.
// - Every other module is evaluated in the context, with a registry of its own (one per
//   sandbox, like one per test file).
// Vitest's vmThreads/vmForks pools are this with `process` left as Node's (processCopy: false).
'use strict';
const { EventEmitter } = require('node:events');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

function copyProcess() {
  const copy = Object.create(Object.getPrototypeOf(process));
  for (const key of Reflect.ownKeys(process)) {
    if (key === '_events' || key === '_eventsCount' || key === 'env' || key === 'mainModule') continue;
    Object.defineProperty(copy, key, Object.getOwnPropertyDescriptor(process, key));
  }
  EventEmitter.call(copy); // its own listeners, as jest-util runs the constructors over the copy
  copy.env = { ...process.env };
  return copy;
}

function moduleStandIn() {
  const standIn = Object.create(Module);
  for (const name of ['register', 'registerHooks']) {
    standIn[name] = () => {
      throw new Error(`module.${name}() is not supported in Jest`);
    };
  }
  return standIn;
}

/** A sandbox: `require(file)` evaluates `file` (and what it requires) in the sandbox's context. */
function createSandbox({ processCopy = true } = {}) {
  const context = vm.createContext({});
  const g = vm.runInContext('globalThis', context);
  for (const key of Object.getOwnPropertyNames(globalThis)) {
    if (key in g || key === 'global') continue;
    const { enumerable } = Object.getOwnPropertyDescriptor(globalThis, key);
    const pin = (value) => Object.defineProperty(g, key, { value, writable: true, configurable: true, enumerable });
    Object.defineProperty(g, key, {
      configurable: true,
      enumerable,
      get() {
        const value = globalThis[key];
        pin(value);
        return value;
      },
      set: pin,
    });
  }
  g.global = g;
  g.Buffer = Buffer;
  const ownProcess = processCopy ? copyProcess() : process;
  if (processCopy) g.process = ownProcess;
  const standIn = moduleStandIn();
  const cache = new Map();

  function builtin(id) {
    const bare = id.startsWith('node:') ? id.slice(5) : id;
    if (bare === 'module') return standIn;
    if (bare === 'process') return ownProcess;
    return require(id);
  }
  if (processCopy) ownProcess.getBuiltinModule = (id) => (Module.isBuiltin(id) ? builtin(id) : undefined);

  function load(filename) {
    const cached = cache.get(filename);
    if (cached !== undefined) return cached.exports;
    const module = { exports: {}, filename, id: filename };
    cache.set(filename, module);
    const wrapper = vm.compileFunction(fs.readFileSync(filename, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'], {
      filename,
      parsingContext: context,
    });
    wrapper.call(module.exports, module.exports, requireFrom(filename), module, filename, path.dirname(filename));
    return module.exports;
  }

  function requireFrom(parent) {
    const resolve = Module.createRequire(parent).resolve;
    return (id) => (Module.isBuiltin(id) ? builtin(id) : load(resolve(id)));
  }

  return { context, global: g, process: ownProcess, require: (file) => load(path.resolve(file)) };
}

module.exports = { createSandbox };
