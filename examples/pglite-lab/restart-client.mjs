import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
export async function connect(retries = 600) {
  for (let i = 0; ; i++) {
    const client = new pg.Client({ host: 'db', port: 5432, user: 'postgres', database: 'postgres' });
    try { await client.connect(); return client; } catch (e) {
      if (i >= retries || e.code !== 'ECONNREFUSED') throw e;
      await sleep(100);
    }
  }
}
