/**
 * Where register mode's start-up CPU goes (figure 12, docs/benchmarks.md), timed inside one
 * process with process.cpuUsage: the builtins in the groups the runtime needs them (each group
 * with what it pulls in), the runtime's chunks (compile and top level), startRegisterMode(), and
 * then, not part of the start, what a program's first load of crypto, tls, https and http2 costs
 * (their shims install then).
 * One line per start; run it several times, and with each Node to compare.
 *
 *     DST_SEED=1 DST_QUIET=1 node bench/startup-phases.mjs [dist directory, default ./dist]
 */
import { readdirSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.resolve(process.argv[2] ?? path.join(ROOT, 'dist'));
const require = createRequire(import.meta.url);
// Taken before the shims replace it with the simulated process's.
const cpuUsage = process.cpuUsage.bind(process);

/**
 * The builtins the runtime's chunks load at start, in that order, grouped by why (each group's
 * figure includes what it pulls in). tls, https and http2 are not among them: their shims are
 * installed at their first load (shims/builtin-loads.ts), timed last as `first use`.
 */
const GROUPS = {
  // They capture timer functions when they first load.
  capturing: ['node:net', 'node:child_process', 'node:readline', 'node:perf_hooks', 'node:http'],
  // Patched at install, or used by the runtime's own code.
  other: ['node:dgram', 'node:dns', 'node:dns/promises', 'node:timers/promises', 'node:worker_threads', 'node:v8', 'node:vm', 'node:os'],
};
/** Loaded by a program that uses them, after the start: each installs its shim as it loads. */
const FIRST_USE = ['node:crypto', 'node:tls', 'node:https', 'node:http2'];

const parts = [];
let since = cpuUsage();
const step = (name) => {
  const used = cpuUsage(since);
  parts.push(`${name} ${((used.user + used.system) / 1000).toFixed(1)}`);
  since = cpuUsage();
};
Module.enableCompileCache?.();
step('compile-cache');
for (const [name, builtins] of Object.entries(GROUPS)) {
  for (const builtin of builtins) require(builtin);
  step(name);
}
const chunks = path.join(dist, 'chunks');
const registerMode = readdirSync(chunks).find((file) => file.startsWith('register-mode-') && file.endsWith('.cjs'));
const { startRegisterMode } = require(path.join(chunks, registerMode));
step('chunks');
startRegisterMode();
step('startRegisterMode');
for (const builtin of FIRST_USE) require(builtin);
step('first use of crypto/tls/https/http2');
process.stderr.write(`${process.version} CPU ms: ${parts.join(' | ')}\n`);
