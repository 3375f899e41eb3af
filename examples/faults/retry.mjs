// A retry that double-applies after a reset, as one plain program: a payments service and three
// clients on 127.0.0.1. A client whose connection breaks before the reply arrives resends the
// request on a new connection, as any RPC client with retries does. When the reset hit the reply,
// the service already applied the payment: without de-duplication it applies it twice, and the
// balance ends higher than what was paid. Only a connection reset exposes it.
//
// The fix (retry-fixed.mjs): the service remembers the reply of each request id and answers a
// resent request from memory. Run: dst explore examples/faults/retry-buggy.mjs --seeds 300 --swarm
import { Client, serve } from './rpc.mjs';

const PAYMENTS = 20;

export async function main({ dedup }) {
  let balance = 0;
  const server = await serve(7201, (request) => {
    balance += request.amount;
    return { ok: true, balance };
  }, { dedup });
  const client = async (who, amount) => {
    const payments = new Client(who, 7201);
    let paid = 0;
    for (let i = 0; i < PAYMENTS; i++) {
      await payments.call({ op: 'pay', amount });
      paid += amount;
    }
    payments.close();
    return paid;
  };
  const paid = await Promise.all([client('A', 1), client('B', 10), client('C', 100)]);
  server.close();
  const expected = paid.reduce((a, b) => a + b, 0);
  if (balance !== expected) throw new Error(`balance ${balance}, but ${expected} was paid: a payment was applied twice`);
  console.log(`balance ${balance}`);
}
