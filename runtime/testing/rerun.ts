/**
 * The command that reruns the current test, for replay lines printed without a `file`.
 *
 * mocha runs test files in the process the user started, so that process's command line reruns
 * them; node:test runs each in a child, `node --test <file>` reruns it. Jest and Vitest run them in
 * worker processes or threads whose command line is the runner's worker script (Vitest's
 * forks.js, threads.js, vmThreads.js): pasting it reruns nothing. Both keep the running test's
 * file and full name in the state of their `expect` (the jest-compatible matchers object on the
 * test file's global), from which `npx vitest run <file> -t <name>` and `npx jest <file> -t
 * <name>` are built. In a worker thread of any other runner there is no command to give.
 */
import path from 'node:path';
import { createRequire } from 'node:module';
import { replayNode, shellQuote } from '../options.js';
import { testRealmGlobal } from '../realms.js';
import { captureStack, programFrames } from '../trace/site.js';

/** mocha's worker script, `mocha --parallel` runs each test file in a process of it. */
const MOCHA_WORKER = /[\\/]mocha[\\/]lib[\\/]nodejs[\\/]worker\.c?js$/;

/** Whether this process is a `mocha --parallel` worker. */
function inMochaWorker(): boolean {
  const script = process.argv[1];
  return script !== undefined && MOCHA_WORKER.test(script);
}

/**
 * In a `mocha --parallel` worker (whose command line, its worker script, reruns nothing), the
 * test file of the code calling now: the first frame of the program's on the stack. Undefined
 * elsewhere, where the command line says it.
 */
export function testFileOfCaller(): string | undefined {
  if (!inMochaWorker()) return undefined;
  const frame = programFrames(captureStack(testFileOfCaller, 20).stack)[0];
  return frame?.replace(/:\d+:\d+$/, '');
}

/** Asked when a command is built, not at start: node:worker_threads costs 2 ms of CPU to load. */
function isMainThread(): boolean {
  return (createRequire(__filename)('node:worker_threads') as typeof import('node:worker_threads')).isMainThread;
}

/** Where Jest's `expect` and Vitest's keep their state, on the global of the test file's realm. */
const MATCHERS = Symbol.for('$$jest-matchers-object');

interface RunnerTest {
  runner: 'jest' | 'vitest';
  file: string;
  /** The test's full name: describe blocks and test, space-separated, as -t matches it. */
  name: string;
}

function matcherState(global: Record<PropertyKey, unknown> | undefined): { testPath?: unknown; currentTestName?: unknown } | undefined {
  try {
    return (global?.[MATCHERS] as { state?: { testPath?: unknown; currentTestName?: unknown } } | undefined)?.state;
  } catch {
    return undefined; // a getter of the runner's that throws outside a test
  }
}

/** The Jest or Vitest test running now, if this process is one of their workers. */
function runnerTest(env: NodeJS.ProcessEnv): RunnerTest | undefined {
  const runner = env.VITEST !== undefined && env.VITEST !== '' ? 'vitest' : env.JEST_WORKER_ID !== undefined ? 'jest' : undefined;
  if (runner === undefined) return undefined;
  for (const global of [testRealmGlobal(), globalThis as unknown as Record<PropertyKey, unknown>]) {
    const state = matcherState(global);
    if (typeof state?.testPath !== 'string' || typeof state.currentTestName !== 'string') continue;
    // Vitest's currentTestName joins names with " > ", Jest's with " "; -t matches them space-joined.
    const name = runner === 'vitest' ? state.currentTestName.split(' > ').join(' ') : state.currentTestName;
    return { runner, file: state.testPath, name };
  }
  return undefined;
}

/** A -t pattern that matches exactly the test named `name` (at the end of its full name). */
function namePattern(name: string): string {
  return `${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
}

/**
 * The command that reruns the running test, after `assignments` (`NAME=value` words), or
 * undefined when this process cannot tell one (a worker thread of an unknown runner).
 */
export function rerunCommand(assignments: string[], env: NodeJS.ProcessEnv = process.env, testFile?: string): string | undefined {
  if (inMochaWorker()) {
    // One file, serially: the same test, with the same seed, in the process mocha starts. (Not
    // a path into node_modules/mocha/: mocha's stack filter drops every line naming one.)
    return testFile === undefined ? undefined : [...assignments, 'npx', 'mocha', shellQuote(testFile)].join(' ');
  }
  const test = runnerTest(env);
  if (test !== undefined) {
    const file = path.relative(process.cwd(), test.file) || test.file;
    const command = test.runner === 'vitest' ? ['npx', 'vitest', 'run', file] : ['npx', 'jest', file];
    if (test.name !== '') command.push('-t', namePattern(test.name));
    return [...assignments, ...command.map(shellQuote)].join(' ');
  }
  if (env.VITEST !== undefined || env.JEST_WORKER_ID !== undefined || !isMainThread()) return undefined;
  const argv = process.argv.slice(1).map((arg, i) => (i === 0 ? path.relative(process.cwd(), arg) || arg : arg));
  // A child of `node --test`: on 24 its execArgv is every option of the parent's, defaults
  // included (two dozen flags), so the file is rerun the way the user ran it.
  const execArgv = env.NODE_TEST_CONTEXT?.startsWith('child') ? ['--test'] : process.execArgv;
  return [...assignments, ...[replayNode(env), ...execArgv, ...argv].map(shellQuote)].join(' ');
}

/**
 * What a replay line says when rerunCommand() has none: the settings to rerun the test with,
 * and `advice` (what to pass to get a command).
 */
export function withoutRerunCommand(assignments: string[], advice: string): string {
  return `run this test again with ${assignments.join(' ')} (no command reruns it from this worker thread of its runner; ${advice})`;
}
