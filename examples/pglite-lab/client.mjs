import pg from 'pg';
export default async function main() {
  const client = new pg.Client({ host: 'db', port: 5432, user: 'postgres', database: 'postgres' });
  await client.connect();
  const r = await client.query('select 41 + 1 as answer, now() as now');
  console.log('client:', r.rows);
  await client.end();
}
