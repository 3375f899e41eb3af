/**
 * Runs `npm run build` unless dist/ is current: every file the build writes exists and is newer
 * than every file it reads (the sources, the build's configuration and the locked dependencies).
 * `npm test`, `npm run test:quick` and `npm run demo` start here, so a second run starts at once
 * instead of after a minute of rollup. On a fresh clone dist/ is absent, so it builds; a
 * checkout, pull or edit gives the files it touches the current time, so those build again too.
 *
 *     node scripts/build-if-stale.mjs           # build when stale, say so when not
 *     node scripts/build-if-stale.mjs --check   # only say which: exit 0 when current, 1 when stale
 */
import { execSync } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/**
 * What rollup.config.mjs reads: runtime/, shims/ and integrations/ (the test runners' entries),
 * the entries at the top level (every .ts and .cjs file there: index.ts, register.ts, realm.ts,
 * entry.cjs), and the build's settings.
 */
function inputs(root) {
  const entries = readdirSync(root).filter((file) => /\.(ts|cjs)$/.test(file));
  return ['runtime', 'shims', 'integrations', ...entries, 'rollup.config.mjs', 'tsconfig.json', 'package.json', 'package-lock.json'];
}

/**
 * What the build must have written: every file package.json "exports" names (an entry's .cjs,
 * .mjs and .d.ts; dst-runtime/vitest has no .cjs), and the loader hooks.
 */
function outputs(root) {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const files = Object.entries(pkg.exports)
    .filter(([key]) => key !== './package.json')
    .flatMap(([, conditions]) => Object.values(conditions))
    .filter((file) => typeof file === 'string' && file.startsWith('./dist/'));
  return [...new Set([...files.map((file) => file.slice('./dist/'.length)), 'loader-hooks.mjs'])].map((file) => path.join(root, 'dist', file));
}

/** The newest modification time among `file` and, for a directory, everything under it. */
function newestMs(file) {
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a file removed from the directory changes the directory's own time
  for (const entry of readdirSync(file)) newest = Math.max(newest, newestMs(path.join(file, entry)));
  return newest;
}

/** The oldest modification time of the files under `dir`. */
function oldestMs(dir) {
  let oldest = Infinity;
  for (const entry of readdirSync(dir)) {
    const file = path.join(dir, entry);
    const stat = statSync(file);
    oldest = Math.min(oldest, stat.isDirectory() ? oldestMs(file) : stat.mtimeMs);
  }
  return oldest;
}

/** Why dist/ under `root` must be built again, or undefined when it is current. */
export function staleness(root = ROOT) {
  for (const file of outputs(root)) {
    try {
      statSync(file);
    } catch {
      return `${path.relative(root, file)} is missing`;
    }
  }
  // Every file of dist/ counts (chunks included): the build starts from an empty dist/.
  const oldestOutputMs = oldestMs(path.join(root, 'dist'));
  for (const input of inputs(root)) {
    let inputMs;
    try {
      inputMs = newestMs(path.join(root, input));
    } catch {
      continue; // not in this checkout (a package-lock.json is optional)
    }
    if (inputMs > oldestOutputMs) return `${input} changed since the last build`;
  }
  return undefined;
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const reason = staleness();
  if (process.argv.includes('--check')) {
    console.log(reason === undefined ? 'dist/ is current' : `dist/ is stale: ${reason}`);
    process.exitCode = reason === undefined ? 0 : 1;
  } else if (reason === undefined) {
    console.log('dist/ is current (newer than every source): build skipped');
  } else {
    console.log(`building dist/: ${reason}`);
    execSync('npm run build', { cwd: ROOT, stdio: 'inherit' });
  }
}
