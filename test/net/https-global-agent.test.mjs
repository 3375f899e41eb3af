/**
 * https.get with Node's default agent (https.globalAgent, keep-alive since Node 19) in two
 * simulations in one process: the second must not reuse the first's pooled TLS socket, whose
 * simulated handle is gone (it crashed with "write EBADF" at the first request). Found while
 * testing TLS determinism; seed 0x1.
 */
import assert from 'node:assert/strict';
import https from 'node:https';
import { Sim } from 'dst-runtime';

async function twoRequests(seed) {
  const sim = new Sim({ seed });
  const tls = sim.tls();
  sim.host('srv', async () => {
    https.createServer({ key: tls.key('srv'), cert: tls.cert('srv') }, (req, res) => res.end(`ok ${req.url}`)).listen(443);
  });
  let out = '';
  sim.client('c', async () => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    for (let i = 0; i < 2; i++) {
      out += await new Promise((resolve, reject) => {
        https.get(`https://srv/${i}`, { ca: tls.ca }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve(`${body};`));
        }).on('error', reject);
      });
    }
  });
  const result = await sim.run();
  return { stopReason: result.stopReason, out, fingerprint: result.fingerprint };
}

describe('https.globalAgent inside hosts (seed 0x1)', function () {
  this.timeout(60_000);

  it('a second simulation in the process gets a fresh agent: same run as the first', async () => {
    const outside = https.globalAgent;
    const first = await twoRequests('0x1');
    const second = await twoRequests('0x1');
    assert.deepEqual(first, { stopReason: 'clients-done', out: 'ok /0;ok /1;', fingerprint: first.fingerprint });
    assert.deepEqual(second, first);
    // Outside a simulation the process's own agent is back, as a plain property.
    assert.equal(https.globalAgent, outside);
    assert.equal(typeof Object.getOwnPropertyDescriptor(https, 'globalAgent').value, 'object');
  });
});
