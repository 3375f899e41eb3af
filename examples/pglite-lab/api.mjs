// A small HTTP API over Postgres: POST /withdraw?amount=N on account 1.
// BUG=1: reads the balance, then writes balance - amount (no transaction): a lost update.
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ host: 'db', port: 5432, user: 'postgres', database: 'postgres', max: 4 });
const bug = process.env.BUG === '1';

async function withdraw(amount) {
  if (bug) {
    const { rows } = await pool.query('select balance from accounts where id = 1');
    if (rows[0].balance < amount) return false;
    await pool.query('update accounts set balance = $1 where id = 1', [rows[0].balance - amount]);
    return true;
  }
  const client = await pool.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query('select balance from accounts where id = 1 for update');
    if (rows[0].balance < amount) { await client.query('rollback'); return false; }
    await client.query('update accounts set balance = balance - $1 where id = 1', [amount]);
    await client.query('commit');
    return true;
  } finally {
    client.release();
  }
}

http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://api');
  try {
    if (url.pathname === '/withdraw') {
      const ok = await withdraw(Number(url.searchParams.get('amount')));
      res.writeHead(ok ? 200 : 409).end(ok ? 'ok' : 'insufficient funds');
    } else if (url.pathname === '/balance') {
      const { rows } = await pool.query('select balance from accounts where id = 1');
      res.end(String(rows[0].balance));
    } else res.writeHead(404).end();
  } catch (e) {
    res.writeHead(500).end(e.message);
  }
}).listen(8080);
