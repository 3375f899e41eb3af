// A small bank API over Postgres, the way many Node services are written: node:http, a pg.Pool,
// SQL. POST /withdraw?account=1&amount=30 takes money out if the balance allows; GET /balance
// answers the balance. At boot it creates its table (a migration) and the account.
//
// BANK_BUG=1 is the version with the bug: it reads the balance, decides in JavaScript, then writes
// the new balance it computed. Two withdrawals that read before either writes both succeed, and
// one of them is lost (a lost update): the balance says 70 after two withdrawals of 30 from 100.
// The fix: one transaction that locks the row (SELECT ... FOR UPDATE) and writes relative to it.
import http from 'node:http';
import pg from 'pg';

const bug = process.env.BANK_BUG === '1';
const pool = new pg.Pool({ host: process.env.PGHOST ?? 'db', port: 5432, user: 'postgres', database: 'postgres', max: 4 });

async function migrate() {
  for (let attempt = 1; ; attempt++) {
    try {
      await pool.query('CREATE TABLE IF NOT EXISTS accounts (id int PRIMARY KEY, balance int NOT NULL CHECK (balance >= 0))');
      await pool.query('INSERT INTO accounts VALUES (1, 100) ON CONFLICT (id) DO NOTHING');
      return;
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100)); // the database is still starting
    }
  }
}

async function withdraw(account, amount) {
  if (bug) {
    const { rows } = await pool.query('SELECT balance FROM accounts WHERE id = $1', [account]);
    if (rows[0].balance < amount) return false;
    await pool.query('UPDATE accounts SET balance = $1 WHERE id = $2', [rows[0].balance - amount, account]);
    return true;
  }
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query('SELECT balance FROM accounts WHERE id = $1 FOR UPDATE', [account]);
    if (rows[0].balance < amount) {
      await client.query('ROLLBACK');
      return false;
    }
    await client.query('UPDATE accounts SET balance = balance - $1 WHERE id = $2', [amount, account]);
    await client.query('COMMIT');
    return true;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

await migrate();
http
  .createServer(async (req, res) => {
    const url = new URL(req.url, 'http://api');
    const account = Number(url.searchParams.get('account') ?? 1);
    try {
      if (req.method === 'POST' && url.pathname === '/withdraw') {
        const ok = await withdraw(account, Number(url.searchParams.get('amount')));
        res.writeHead(ok ? 200 : 409).end(ok ? 'ok' : 'insufficient funds');
      } else if (url.pathname === '/balance') {
        const { rows } = await pool.query('SELECT balance FROM accounts WHERE id = $1', [account]);
        res.end(String(rows[0].balance));
      } else {
        res.writeHead(404).end();
      }
    } catch (error) {
      res.writeHead(500).end(error.message);
    }
  })
  .listen(8080);
