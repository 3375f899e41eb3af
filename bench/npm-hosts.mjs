/**
 * The real npm packages of figures 10 and 11 (mqtt.js and aedes), installed by the bench into
 * bench/npm-hosts/node_modules from its package-lock.json the first time a figure needs them.
 * They are not dependencies of dst-runtime: `npm ci` of the repository (every engineer, every
 * CI run) would fetch about 50 packages for two bench figures. Without the registry the
 * figures are skipped, and the report says why.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const NPM_HOSTS_DIR = fileURLToPath(new URL('./npm-hosts/', import.meta.url));
const INSTALL_TIMEOUT_MS = 300_000;

/** Whether each package of bench/npm-hosts/package.json is installed at the version it pins. */
function installed() {
  const { dependencies } = JSON.parse(fs.readFileSync(path.join(NPM_HOSTS_DIR, 'package.json'), 'utf8'));
  return Object.entries(dependencies).every(([name, version]) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(NPM_HOSTS_DIR, 'node_modules', name, 'package.json'), 'utf8')).version === version;
    } catch {
      return false;
    }
  });
}

let reason;
let checked = false;

/**
 * Installs the packages when they are missing (npm ci, once per process); returns why they
 * cannot be used, or undefined when they can.
 */
export function npmHostsMissing() {
  if (checked) return reason;
  checked = true;
  if (installed()) return (reason = undefined);
  process.stderr.write(`bench: installing mqtt.js and aedes into ${path.relative(process.cwd(), NPM_HOSTS_DIR) || NPM_HOSTS_DIR} (npm ci)\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // Under the test suite NODE_EXTRA_CA_CERTS is kept aside (test/support/pin-machine.cjs): npm
  // may need it to reach the registry.
  const env = { ...process.env };
  if (env.NODE_EXTRA_CA_CERTS === undefined && env.TEST_NODE_EXTRA_CA_CERTS !== undefined) env.NODE_EXTRA_CA_CERTS = env.TEST_NODE_EXTRA_CA_CERTS;
  const run = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: NPM_HOSTS_DIR, env, encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS });
  if (run.status === 0 && installed()) return (reason = undefined);
  const output = (run.error?.message ?? `${run.stdout}${run.stderr}`)
    .split('\n')
    .map((line) => line.replace(/^npm error /, '').trim())
    .filter(Boolean)
    .slice(0, 3)
    .join('; ');
  return (reason = `mqtt.js and aedes could not be installed into bench/npm-hosts (npm ci: ${output || `exit ${run.status}`})`);
}
