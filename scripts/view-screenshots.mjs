// Screenshots of `dst view` for the docs (docs/images/view-*.png): a KV failure (the planted bug
// noLongestLog, seed 0x2), whole and zoomed to the clicked failure, in Debian's Chromium.
//   node scripts/view-screenshots.mjs        (needs /usr/bin/chromium: apt-get install chromium)
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dst-shots-'));
const trace = path.join(tmp, 'kv.jsonl');
const page = path.join(tmp, 'kv.html');
try {
  execFileSync(process.execPath, ['cli/dst.mjs', 'run', 'packages/kv/scenarios/crash-recovery.mjs', '--seed', '0x2', '--trace', trace, '--view', '--out', page], {
    cwd: ROOT,
    env: { ...process.env, DST_KV_BUG: 'noLongestLog' },
    stdio: 'ignore',
  });
} catch (error) {
  if (error.status !== 71) throw error; // the seed fails: that is the point
}
const browser = await chromium.launch({
  executablePath: process.env.TEST_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const tab = await browser.newPage({ viewport: { width: 1400, height: 720 } });
await tab.goto(pathToFileURL(page).href);
await tab.screenshot({ path: path.join(ROOT, 'docs/images/view-overview.png') });
await tab.click('#zoom-failure');
await tab.click('#failure-marker');
await tab.screenshot({ path: path.join(ROOT, 'docs/images/view-failure.png') });
await browser.close();
console.log('wrote docs/images/view-overview.png and docs/images/view-failure.png');
