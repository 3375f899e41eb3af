import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
const t0 = Date.now();
const db = await PGlite.create();
console.log(`db: created at virtual ${Date.now() - t0} ms`);
const server = new PGLiteSocketServer({ db, port: 5432, host: '0.0.0.0' });
await server.start();
console.log('db: listening');
