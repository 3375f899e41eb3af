// A real third-party library over TLS, unmodified: ws (from npm) serves wss:// on host "chat"
// (an https.Server with a certificate from sim.tls()) and connects from hosts "alice" and "bob"
// by name, verifying against the simulation's CA. Messages, pings and a server-side close go
// both ways; a partition in the middle delays messages (TCP retransmits) without breaking the
// connection. One seed replays to the identical log and fingerprint; another seed gives another
// execution with the same messages.
import assert from 'node:assert/strict';
import https from 'node:https';
import { Sim } from 'dst-runtime';
import { WebSocket, WebSocketServer } from 'ws';

async function chat(seed) {
  const sim = new Sim({ seed, network: { latency: { minMs: 2, maxMs: 10 } } });
  const pki = sim.tls();
  const log = [];
  sim.host('chat', () => {
    const server = https.createServer({ key: pki.key('chat'), cert: pki.cert('chat') });
    const wss = new WebSocketServer({ server });
    wss.on('connection', (ws, req) => {
      const who = new URL(req.url, 'https://chat').searchParams.get('me');
      ws.on('message', (data) => {
        log.push(`chat got "${data}" from ${who} at ${Date.now() % 100000}`);
        for (const client of wss.clients) client.send(`${who}: ${data}`);
        if (String(data) === 'bye') ws.close(1000, 'see you');
      });
    });
    server.listen(443);
  });
  for (const [name, delayMs] of [
    ['alice', 0],
    ['bob', 7],
  ]) {
    sim.client(name, async () => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const ws = new WebSocket(`wss://chat/?me=${name}`, { ca: pki.ca });
      ws.on('message', (data) => log.push(`${name} got "${data}" at ${Date.now() % 100000}`));
      await new Promise((resolve, reject) => {
        ws.on('open', resolve);
        ws.on('error', reject);
      });
      log.push(`${name} open protocol ${ws._socket.getProtocol()} authorized ${ws._socket.authorized}`);
      for (let i = 0; i < 3; i++) {
        ws.send(`${name} ${i}`);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      const pong = new Promise((resolve) => ws.once('pong', resolve));
      ws.ping('p');
      log.push(`${name} pong "${await pong}"`);
      ws.send('bye');
      const [code, reason] = await new Promise((resolve) => ws.on('close', (c, r) => resolve([c, String(r)])));
      log.push(`${name} closed ${code} ${reason}`);
    });
  }
  sim.client('operator', async () => {
    await new Promise((resolve) => setTimeout(resolve, 350));
    sim.partition('chat', 'bob');
    await new Promise((resolve) => setTimeout(resolve, 400));
    sim.repair('chat', 'bob');
  });
  const result = await sim.run();
  return { fingerprint: result.fingerprint, events: result.events, log };
}

describe('ws over wss between simulated hosts (a real npm library, unmodified)', function () {
  this.timeout(60_000);

  it('seed 0x5e55: both clients chat, ping and close; the run replays exactly', async () => {
    const first = await chat('0x5e55');
    const again = await chat('0x5e55');
    assert.deepEqual(again, first);
    const { log } = first;
    for (const name of ['alice', 'bob']) {
      assert.ok(log.includes(`${name} open protocol TLSv1.3 authorized true`), log.join('\n'));
      assert.ok(log.includes(`${name} pong "p"`), log.join('\n'));
      assert.ok(log.includes(`${name} closed 1000 see you`), log.join('\n'));
      for (let i = 0; i < 3; i++) assert.ok(log.some((line) => line.startsWith(`chat got "${name} ${i}" from ${name}`)), `${name} ${i}\n${log.join('\n')}`);
    }
    // Bob's message sent during the partition (at about 640 ms) arrives after the repair (750 ms).
    const bobDuring = log.find((line) => line.startsWith('chat got "bob 2"'));
    assert.ok(Number(bobDuring.split(' at ')[1]) >= 750, bobDuring);
  });

  it('another seed: another execution, the same conversation', async () => {
    const a = await chat('0x5e55');
    const b = await chat('0x77');
    assert.notEqual(b.fingerprint, a.fingerprint);
    const messages = (log) => log.filter((line) => line.startsWith('chat got')).map((line) => line.split(' at ')[0]).sort();
    assert.deepEqual(messages(b.log), messages(a.log));
  });
});
