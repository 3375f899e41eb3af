/**
 * The command that reruns the current test, for replay lines printed without a `file`.
 *
 * mocha runs test files in the process the user started, so that process's command line reruns
 * them; node:test runs each in a child, `node --test <file>` reruns it. Jest and Vitest run them in
 * worker processes or threads whose command line is the runner's worker script (Vitest's
 * forks.js, threads.js, vmThreads.js): pasting it reruns nothing. Both keep the running test's
 * file and full name in the state of their `expect` (the jest-compatible matchers object on the
 * test file's global), from which `npx vitest run <file> -t <name>` and `npx jest <file> -t
 * <name>` are built, with the options of the runner's own command line that choose its
 * configuration (`-c/--config`, a root, projects). In a worker thread of any other runner there
 * is no command to give.
 */
import { readFileSync } from 'node:fs';
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
  /** The file has concurrent tests: `name` is the last one started, not necessarily this one. */
  concurrent: boolean;
}

/** A task tree of Jest's (describe blocks' `children`) or Vitest's (suites' `tasks`): whether a test in it runs concurrently. */
function hasConcurrentTest(node: unknown, childrenKey: 'children' | 'tasks', depth = 0): boolean {
  if (typeof node !== 'object' || node === null || depth > 64) return false;
  const task = node as Record<string, unknown>;
  if (task.concurrent === true) return true;
  const children = task[childrenKey];
  if (!Array.isArray(children)) return false;
  for (const child of children) if (hasConcurrentTest(child, childrenKey, depth + 1)) return true;
  return false;
}

/**
 * Whether the running test file has concurrent tests (`test.concurrent`, `describe.concurrent`):
 * Jest and Vitest then start them one after another before any has ended, and the name in the
 * state of `expect` is the last one started (seen: every test of a concurrent group named the
 * last). Read from Jest's circus state (a global under a symbol of its own, found by its
 * description) and Vitest's worker state (the current task's file).
 */
function fileHasConcurrentTests(runner: 'jest' | 'vitest', global: Record<PropertyKey, unknown>): boolean {
  try {
    if (runner === 'vitest') {
      const current = (global.__vitest_worker__ as { current?: { file?: unknown; concurrent?: unknown } } | undefined)?.current;
      return current?.concurrent === true || hasConcurrentTest(current?.file, 'tasks');
    }
    for (const symbol of Object.getOwnPropertySymbols(global)) {
      if (symbol.description !== 'JEST_STATE_SYMBOL') continue;
      const state = global[symbol] as { rootDescribeBlock?: unknown } | undefined;
      return hasConcurrentTest(state?.rootDescribeBlock, 'children');
    }
  } catch {
    // A getter of the runner's that throws: the name is what there is.
  }
  return false;
}

/**
 * Options of the runner's command line that choose what configuration it runs with: the value
 * count they take (`many`: the words up to the next option). Spelled as the runners accept them
 * (Jest's yargs takes camelCase and kebab-case alike).
 */
const CONFIG_OPTIONS: Record<'jest' | 'vitest', Record<string, 1 | 'many'>> = {
  jest: {
    '-c': 1,
    '--config': 1,
    '--rootDir': 1,
    '--root-dir': 1,
    '--selectProjects': 'many',
    '--select-projects': 'many',
    '--ignoreProjects': 'many',
    '--ignore-projects': 'many',
    '--projects': 'many',
  },
  vitest: { '-c': 1, '--config': 1, '-r': 1, '--root': 1, '--dir': 1, '--project': 1, '--mode': 1 },
};

/** The script of each runner's command-line interface (node_modules/.bin/jest, jest/bin/jest.js, vitest/vitest.mjs). */
const RUNNER_SCRIPT: Record<'jest' | 'vitest', RegExp> = { jest: /^jest(\.[cm]?js)?$/, vitest: /^vitest(\.[cm]?js)?$/ };

/**
 * The arguments the runner's command line passed its script: this process's when it is the
 * runner's (Jest runs a lone test file in its own process; Vitest's threads pool runs test files
 * in worker threads of its main process), else the parent's (a worker process the runner forked).
 * Read from /proc: on a system without it, undefined.
 */
function runnerArguments(runner: 'jest' | 'vitest'): string[] | undefined {
  for (const pid of ['self', String(process.ppid)]) {
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      return undefined;
    }
    if (argv[argv.length - 1] === '') argv.pop();
    for (let i = 1; i < argv.length; i++) {
      if (RUNNER_SCRIPT[runner].test(path.basename(argv[i]!))) return argv.slice(i + 1);
    }
  }
  return undefined;
}

/** The options of `args` (a runner's command line) that choose its configuration, in their order. */
function configOptions(runner: 'jest' | 'vitest', args: readonly string[]): string[] {
  const known = CONFIG_OPTIONS[runner];
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    const equals = arg.indexOf('=');
    if (equals > 0 && Object.hasOwn(known, arg.slice(0, equals))) {
      kept.push(arg);
      continue;
    }
    if (!Object.hasOwn(known, arg)) continue;
    kept.push(arg);
    if (known[arg] === 1) {
      if (i + 1 < args.length) kept.push(args[++i]!);
    } else {
      while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) kept.push(args[++i]!);
    }
  }
  return kept;
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
    return { runner, file: state.testPath, name, concurrent: fileHasConcurrentTests(runner, global!) };
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
    // After the file: a Jest option of many values takes every word up to the next option.
    command.push(...configOptions(test.runner, runnerArguments(test.runner) ?? []));
    if (test.name !== '' && !test.concurrent) command.push('-t', namePattern(test.name));
    const line = [...assignments, ...command.map(shellQuote)].join(' ');
    // A shell comment: the line still pastes as a command.
    return test.concurrent ? `${line}  # this file's tests run concurrently, and the runner does not say which one this is: add -t <its name> to run it alone` : line;
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
