/**
 * Figure 6's baseline: the database work of one seed of examples/postgres/bank.mjs (the fixed
 * API), in plain Node, with no simulator: boot PGlite from the same template (the service's own
 * preparation), serve the wire protocol on loopback, run the API's migration and three customers
 * withdrawing twice each through node:http and a pg.Pool, read the balance, shut down. What a
 * seed costs under `dst explore` is set against what the same work costs plainly.
 */
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { preparePostgres } from 'dst-runtime/services/postgres';

const EXAMPLE = fileURLToPath(new URL('../examples/postgres/', import.meta.url));

/** Why figure 7 cannot run here, or undefined when it can. */
export function postgresMissing() {
  return fs.existsSync(path.join(EXAMPLE, 'node_modules', '@electric-sql', 'pglite-socket'))
    ? undefined
    : 'PGlite is not installed in examples/postgres (npm --prefix examples/postgres install, or npm run demo:postgres once)';
}

/** The ES module entry of package `name` as examples/postgres installed it. */
async function importFromExample(name) {
  const entry = createRequire(path.join(EXAMPLE, 'package.json')).resolve(name);
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (pkg.name !== name) continue;
    const dot = pkg.exports?.['.'];
    const esm = typeof dot === 'string' ? dot : (dot?.import?.default ?? dot?.import ?? dot?.default ?? pkg.main);
    return import(pathToFileURL(path.join(dir, esm)).href);
  }
  throw new Error(`Failed to load ${name} from examples/postgres`);
}

let loaded;
async function modules() {
  if (loaded !== undefined) return loaded;
  const [{ PGlite }, { PGLiteSocketServer }, pg] = await Promise.all([importFromExample('@electric-sql/pglite'), importFromExample('@electric-sql/pglite-socket'), importFromExample('pg')]);
  const template = new Blob([fs.readFileSync(preparePostgres({ from: EXAMPLE }))]);
  const dist = path.join(path.dirname(createRequire(path.join(EXAMPLE, 'package.json')).resolve('@electric-sql/pglite')), '');
  const assets = {
    pgliteWasmModule: new WebAssembly.Module(fs.readFileSync(path.join(dist, 'pglite.wasm'))),
    initdbWasmModule: new WebAssembly.Module(fs.readFileSync(path.join(dist, 'initdb.wasm'))),
    fsBundle: new Blob([fs.readFileSync(path.join(dist, 'pglite.data'))]),
  };
  return (loaded = { PGlite, PGLiteSocketServer, Pool: (pg.default ?? pg).Pool, template, assets });
}

/** One seed's worth of the bank's database work; returns the final balance. */
export async function plainBankRun() {
  const { PGlite, PGLiteSocketServer, Pool, template, assets } = await modules();
  const db = await PGlite.create({ ...assets, loadDataDir: template });
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 16 });
  await server.start();
  const port = server.server?.address?.()?.port ?? server.port;
  const pool = new Pool({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', max: 4 });
  await pool.query('CREATE TABLE IF NOT EXISTS accounts (id int PRIMARY KEY, balance int NOT NULL CHECK (balance >= 0))');
  await pool.query('INSERT INTO accounts VALUES (1, 100) ON CONFLICT (id) DO NOTHING');
  const api = http.createServer(async (req, res) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query('SELECT balance FROM accounts WHERE id = $1 FOR UPDATE', [1]);
      const ok = rows[0].balance >= 30;
      if (ok) await client.query('UPDATE accounts SET balance = balance - $1 WHERE id = $2', [30, 1]);
      await client.query(ok ? 'COMMIT' : 'ROLLBACK');
      res.writeHead(ok ? 200 : 409).end();
    } finally {
      client.release();
    }
  });
  await new Promise((resolve) => api.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${api.address().port}/withdraw`;
  const agent = new http.Agent({ keepAlive: false });
  const post = () => new Promise((resolve, reject) => http.request(url, { method: 'POST', agent }, (res) => res.resume().on('end', resolve)).on('error', reject).end());
  await Promise.all([0, 1, 2].map(async () => {
    await post();
    await post();
  }));
  const balance = (await pool.query('SELECT balance FROM accounts WHERE id = 1')).rows[0].balance;
  await new Promise((resolve) => api.close(resolve));
  await pool.end();
  await server.stop();
  await db.close();
  if (balance !== 10) throw new Error(`Failed to run the plain Postgres baseline: the balance is ${balance}, expected 10`);
  return balance;
}
