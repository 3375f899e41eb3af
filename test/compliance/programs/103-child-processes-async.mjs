// Asynchronous child processes: spawn, exec and execFile, with what plain Node makes of them
// whatever the child's speed: its output and exit status, errors with their code, syscall, path
// and spawnargs (a missing command, a file that cannot run, a missing working directory), input
// written to stdin in the spawning turn, a kill() in that turn (the child ends by the signal), a
// child that kills itself, a third output pipe, a shell with its environment, an aborted signal,
// maxBuffer, output larger than one pipe read, input larger than the pipe takes, and a pipeline. The order between different pipes' reads and
// the exit is left out: plainly it depends on how fast the child runs.
import { exec, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const lines = [];
const log = (line) => lines.push(line);

/** Everything a child did, once it has closed: collected by stream, so no cross-stream order. */
function collect(name, child) {
  return new Promise((resolve) => {
    const out = [];
    const err = [];
    let spawned = false;
    child.on('spawn', () => (spawned = true));
    child.stdout?.on('data', (d) => out.push(String(d)));
    child.stderr?.on('data', (d) => err.push(String(d)));
    child.on('error', (e) => log(`${name}: error ${e.code} ${e.errno} ${e.syscall} ${e.path} ${JSON.stringify(e.spawnargs)} ${e.message}`));
    child.on('close', (code, signal) => {
      log(`${name}: spawned ${spawned}, close ${code} ${signal}, exitCode ${child.exitCode}, signalCode ${child.signalCode}, killed ${child.killed}, pid ${typeof child.pid}`);
      log(`${name}: stdout ${JSON.stringify(out.join(''))} stderr ${JSON.stringify(err.join(''))}`);
      resolve();
    });
  });
}

await collect('status', spawn('sh', ['-c', 'echo out; echo err >&2; exit 3']));
await collect('enoent', spawn('no-such-command-dst', ['a', 'b']));
await collect('eacces', spawn('/etc/passwd'));
await collect('directory', spawn('/tmp'));
await collect('cwd', spawn('ls', { cwd: '/no/such/dir' }));
await collect('relative', spawn('./no-such-script.sh'));

const sort = spawn('sort');
const sorted = collect('stdin', sort);
sort.stdin.write('pear\napple\n');
sort.stdin.end('fig\n');
await sorted;

// Input beyond what the pipe takes: write() returns false, and what the stream holds back
// (end(data) behind the waiting write) still reaches the child.
const wc = spawn('wc', ['-c']);
const kib = Buffer.alloc(1024, 'k');
let writes = 1;
while (wc.stdin.write(kib) && writes < 10_000) writes++;
log(`big stdin: write() returned true for more than 40 KiB ${writes > 40}`);
wc.stdin.end(Buffer.alloc(1 << 20, 'm'));
let counted = '';
wc.stdout.on('data', (d) => (counted += d));
await new Promise((resolve) => wc.on('close', resolve));
log(`big stdin: the child counted every byte ${Number(counted) === writes * 1024 + (1 << 20)}`);

// A pipeline: one child's stdout as the next one's stdin.
const printf = spawn('printf', ['b\\na\\nc\\nab\\n']);
const grep = spawn('grep', ['a'], { stdio: [printf.stdout, 'pipe', 'pipe'] });
await collect('pipeline', spawn('sort', { stdio: [grep.stdout, 'pipe', 'pipe'] }));

const sleeper = spawn('sleep', ['5']);
const slept = collect('kill', sleeper);
log(`kill returned ${sleeper.kill()}, killed ${sleeper.killed}`);
await slept;

const hard = spawn('sleep', ['5']);
const hardDone = collect('sigkill', hard);
hard.kill('SIGKILL');
await hardDone;

await collect('self-kill', spawn('sh', ['-c', 'echo before; kill -9 $$']));
await collect('fd3', spawn('sh', ['-c', 'echo three >&3; echo one'], { stdio: ['ignore', 'pipe', 'ignore', 'pipe'] }).on('spawn', function () {
  this.stdio[3].on('data', (d) => log(`fd3: fd 3 read ${JSON.stringify(String(d))}`));
}));
await collect('shell', spawn('echo "$GREETING" from $0', { shell: true, env: { GREETING: 'hello', PATH: process.env.PATH } }));
await collect('ignore', spawn('sh', ['-c', 'echo hidden; exit 7'], { stdio: 'ignore' }));

const controller = new AbortController();
const aborted = spawn('sleep', ['5'], { signal: controller.signal });
const abortDone = collect('abort', aborted);
controller.abort();
await abortDone;

const big = await promisify(execFile)('sh', ['-c', 'head -c 300000 /dev/zero | tr "\\0" x'], { maxBuffer: 1024 * 1024 });
log(`big: ${big.stdout.length} bytes, all x ${/^x+$/.test(big.stdout)}`);

const run = promisify(exec);
const hi = await run('echo hi; echo there >&2');
log(`exec: ${JSON.stringify(hi)}`);
try {
  await run('echo partial; exit 2');
} catch (e) {
  log(`exec failed: code ${e.code} killed ${e.killed} signal ${e.signal} cmd ${e.cmd} stdout ${JSON.stringify(e.stdout)}`);
}
try {
  await promisify(execFile)('no-such-command-dst', ['x']);
} catch (e) {
  log(`execFile missing: ${e.code} ${e.errno} ${e.syscall} ${e.path} ${JSON.stringify(e.spawnargs)} cmd ${e.cmd}`);
}
await new Promise((resolve) => {
  exec('echo 0123456789abcdef', { maxBuffer: 4 }, (e, stdout) => {
    log(`maxBuffer: ${e?.code} ${e?.message} stdout ${JSON.stringify(stdout)}`);
    resolve();
  });
});

// A pid that is the child's while it runs: signal 0 asks whether it exists.
const alive = spawn('sh', ['-c', 'exit 0']);
log(`process.kill(child.pid, 0) while it runs: ${process.kill(alive.pid, 0)}`);
await collect('alive', alive);

console.log(lines.join('\n'));
