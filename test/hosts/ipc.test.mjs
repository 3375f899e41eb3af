/**
 * A simulated host has no parent process: in a process started with an IPC channel (forked, as
 * dst explore's workers and mocha --parallel's are), a host sees none (no process.send, channel,
 * connected, disconnect) and its 'message' listeners never hear the real parent, as when the
 * same program is started plainly; outside the hosts the channel is Node's own
 * (shims/process/ipc-channel.ts).
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('./fixtures/ipc-host.mjs', import.meta.url));

function runForked() {
  return new Promise((resolve, reject) => {
    const child = fork(FIXTURE, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const messages = [];
    child.on('message', (message) => {
      messages.push(message);
      if (message.type === 'started') child.send({ fromParent: 1 });
      if (message.type === 'done') child.disconnect();
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(messages) : reject(new Error(`the fixture exited with code ${code}`))));
  });
}

describe('a host in a process with an IPC channel (library mode)', function () {
  this.timeout(60_000);

  it('sees no channel, and the parent\'s messages reach only code outside the hosts', async () => {
    const messages = await runForked();
    assert.deepEqual(messages.map((m) => m.type ?? 'from-host'), ['started', 'done'], 'the host sent nothing to the parent');
    const done = messages[1];
    assert.deepEqual(done.seen, {
      send: 'undefined',
      channel: 'undefined',
      connected: 'undefined',
      disconnect: 'undefined',
      messageListeners: 0,
      listenersAfter: 1,
    });
    assert.deepEqual(done.fromParent, { fromParent: 1 }, 'code outside the hosts got the message');
    assert.equal(messages[0].outsideSend, 'function');
    assert.equal(done.outsideSend, 'function');
    assert.equal(done.outsideListeners, 0, "the host's listener was its own, not the process's");
  });

});
