/**
 * A nextTick that throws, queued by an http server while it reads a request body, crashes that
 * host like any uncaught exception: the run fails with a SimulationError naming the host, and
 * the test runner lives on. (A first version of a parser drain, e285a98, reverted, ran such ticks
 * inside Node's parser callback, where a throw corrupts Node's async id stack and aborts the
 * whole process.)
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { Sim, SimulationError } from 'dst-runtime';

describe('http: a throwing nextTick queued while a request body is read (seed 0x5eed)', function () {
  this.timeout(60_000);

  it('crashes the server host, reported with its name; the runner survives', async () => {
    const sim = new Sim({ seed: 0x5eed });
    sim.host('server', () => {
      http.createServer((req, res) => {
        req.on('data', () => process.nextTick(() => {
          throw new Error('thrown from a tick queued in a data handler');
        }));
        req.on('end', () => res.end('ok'));
      }).listen(8080);
    });
    sim.client('client', () => new Promise((resolve) => {
      const req = http.request({ host: 'server', port: 8080, method: 'POST' }, (res) => res.resume().on('end', resolve));
      req.on('error', resolve);
      req.end('a body');
    }));
    const error = await sim.run().then(() => undefined, (e) => e);
    assert.ok(error instanceof SimulationError, `expected a SimulationError, got ${error}`);
    assert.equal(error.report.kind, 'crash');
    assert.equal(error.report.host, 'server');
    assert.match(error.report.summary, /thrown from a tick queued in a data handler/);
  });
});
