/**
 * The workloads the benchmark measures, written once and run by every subject (the simulator,
 * @sinonjs/fake-timers, the raw driver baseline). Each takes the timer functions it should use,
 * so the simulator and fake-timers execute exactly the same schedule; the network workloads
 * (figures 3 and 4) take the `net`, `dgram` and `dns` modules they run on.
 */

/** The seed of every simulated run: fixed, so fingerprints must repeat exactly. */
export const BENCH_SEED = 0xbe7c4;

/** Sizes of each workload; `quick` is for the smoke test (seconds, not minutes). */
export const SIZES = {
  full: {
    timers: { hostsCount: 4, chainsPerHost: 250, stepsPerChain: 1000, delayMsMax: 10 },
    interval: { hostsCount: 5, intervalMs: 100, durationMs: 3_600_000 },
    immediateEvents: 1_000_000,
    rpc: { port: 7000, roundTrips: 100_000, connections: 1, payload: 'abcdefghijklmnopqrstuvwxyz012345' },
    rpcConcurrent: { port: 7000, roundTrips: 100_000, connections: 4, payload: 'abcdefghijklmnopqrstuvwxyz012345' },
    gossip: { hostsCount: 5, intervalMs: 100, durationMs: 3_600_000, port: 9000 },
    explore: { scenario: 'examples/scenarios/replicated-counter.mjs', seeds: 200 },
    // Process-per-seed runs fewer seeds: at about a second per seed on a loaded machine, as many
    // as the workers run would take minutes. Seeds per second are compared, not totals.
    program: { file: 'bench/programs/small-program.mjs', seeds: 200, seedsPerSeedProcess: 20 },
    postgres: { scenario: 'examples/postgres/bank.mjs', seeds: 10 },
    startup: { starts: 10 },
    tlsRequests: { port: 7443, roundTrips: 5_000, connections: 1, payload: 'abcdefghijklmnopqrstuvwxyz012345' },
    tlsHandshakes: { port: 7443, roundTrips: 300, connections: 1, payload: 'abcdefghijklmnopqrstuvwxyz012345' },
    // Figures 9 and 10: loads per measured run of a re-loading worker (a first load is one per process).
    hostLoads: { loadsPerRun: 10 },
    mqttScenario: { scenario: 'bench/npm-hosts/scenario.mjs', seeds: 10 },
  },
  quick: {
    timers: { hostsCount: 2, chainsPerHost: 20, stepsPerChain: 50, delayMsMax: 10 },
    interval: { hostsCount: 5, intervalMs: 100, durationMs: 60_000 },
    immediateEvents: 20_000,
    rpc: { port: 7000, roundTrips: 200, connections: 1, payload: 'abcdefghijklmnopqrstuvwxyz012345' },
    rpcConcurrent: { port: 7000, roundTrips: 200, connections: 4, payload: 'abcdefghijklmnopqrstuvwxyz012345' },
    gossip: { hostsCount: 5, intervalMs: 100, durationMs: 30_000, port: 9000 },
    explore: { scenario: 'examples/scenarios/replicated-counter.mjs', seeds: 6 },
    program: { file: 'bench/programs/small-program.mjs', seeds: 2, seedsPerSeedProcess: 1 },
    postgres: { scenario: 'examples/postgres/bank.mjs', seeds: 1 },
    startup: { starts: 2 },
    tlsRequests: { port: 7443, roundTrips: 100, connections: 1, payload: 'abcdefghijklmnopqrstuvwxyz012345' },
    tlsHandshakes: { port: 7443, roundTrips: 10, connections: 1, payload: 'abcdefghijklmnopqrstuvwxyz012345' },
    hostLoads: { loadsPerRun: 1 },
    mqttScenario: { scenario: 'bench/npm-hosts/scenario.mjs', seeds: 1 },
  },
};

/**
 * A small xorshift32 generator for the chains' delays. The delays must not depend on whether
 * Math.random is simulated (the simulator's fingerprint has to be stable across repetitions,
 * and fake-timers must see the very same delays), so they come from here. Math.random is still
 * called by the work itself, as real code would.
 */
export function delayStream(hostIndex, chainIndex) {
  let state = (Math.imul(hostIndex + 1, 0x9e3779b1) ^ Math.imul(chainIndex + 1, 0x85ebca6b)) | 0;
  if (state === 0) state = 0x2545f491;
  return function nextUint32() {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
}

/**
 * "A little work": one Math.random draw and one small allocation that lives a few steps (in an
 * eight-slot ring), like a handler that builds a record and keeps it briefly.
 */
export function littleWork(ring, step) {
  const record = { step, value: Math.random() };
  const slot = step & 7;
  const previous = ring[slot];
  ring[slot] = record;
  return previous === undefined ? 0 : previous.value;
}

/**
 * Starts `chainsPerHost` concurrent setTimeout chains of one host. Each chain runs
 * `stepsPerChain` steps; each step does a little work and re-arms itself after a random delay
 * of 1..delayMsMax ms. Calls `onDone` once when every chain has finished.
 * `timers` is anything with a setTimeout (the global object inside a simulated host, or a
 * fake-timers clock).
 */
export function startTimerChains(timers, hostIndex, params, onDone) {
  const { chainsPerHost, stepsPerChain, delayMsMax } = params;
  let chainsRunning = chainsPerHost;
  let checksum = 0;
  for (let c = 0; c < chainsPerHost; c++) {
    const nextUint32 = delayStream(hostIndex, c);
    const ring = new Array(8);
    let stepsLeft = stepsPerChain;
    const step = () => {
      checksum += littleWork(ring, stepsLeft);
      stepsLeft--;
      if (stepsLeft === 0) {
        chainsRunning--;
        if (chainsRunning === 0) onDone(checksum);
        return;
      }
      timers.setTimeout(step, 1 + (nextUint32() % delayMsMax));
    };
    timers.setTimeout(step, 1 + (nextUint32() % delayMsMax));
  }
}

/** Timer callbacks one run of the timer workload fires in total. */
export function timerCallbacksTotal(params) {
  return params.hostsCount * params.chainsPerHost * params.stepsPerChain;
}

/** Virtual ms after which every chain has certainly finished. */
export function timerWorkloadSpanMs(params) {
  return params.stepsPerChain * params.delayMsMax + 1;
}

/** The body of one interval host: a setInterval that does a little random work each tick. */
export function startIntervalHost(timers, params) {
  const ring = new Array(8);
  let ticks = 0;
  timers.setInterval(() => {
    ticks++;
    littleWork(ring, ticks);
    // A few short-lived allocations, like building a small message.
    const message = { kind: 'heartbeat', ticks, payload: [ticks, ticks + 1, ticks + 2] };
    ring[(ticks + 4) & 7] = { step: ticks, value: message.payload.length * Math.random() };
  }, params.intervalMs);
}

// ---- figure 3: TCP request/response ------------------------------------------------------------

/** How the request/response workload connects: plain TCP (figure 3) or TLS over it (figure 6). */
export const plainTransport = {
  createServer: (net, onConnection) => net.createServer(onConnection),
  connect: (net, port, host) => net.connect(port, host),
  connectEvent: 'connect',
};

/**
 * TLS over the same TCP (figure 6): `tls` is node:tls, `pki` a set of test certificates (a
 * server certificate for `host`, verified against the CA). `net` is ignored.
 */
export function tlsTransport(tls, pki, host) {
  return {
    createServer: (_net, onConnection) => tls.createServer({ key: pki.key(host), cert: pki.cert(host) }, onConnection),
    connect: (_net, port, name) => tls.connect({ port, host: name, ca: pki.ca }),
    connectEvent: 'secureConnect',
  };
}

/**
 * The request/response server: every line a client sends is one request; the server does a
 * little work and answers with one line. Handles any number of connections.
 */
/** Calls `onLine` with every complete line (without its newline) `socket` receives, as latin1. */
function onLines(socket, onLine) {
  let buffered = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      onLine(line);
    }
  });
}

export function startRpcServer(net, params, transport = plainTransport) {
  const server = transport.createServer(net, (socket) => {
    const ring = new Array(8);
    let handled = 0;
    onLines(socket, (line) => {
      handled++;
      const value = littleWork(ring, handled);
      socket.write(`ok ${line.slice(4)} ${value > 0.5 ? 1 : 0}\n`);
    });
    socket.on('error', () => socket.destroy());
  });
  server.listen(params.port);
  return server;
}

/**
 * One client connection running `roundTrips` sequential requests: write a line, await its
 * answer, then the next, as code awaiting an RPC does. Resolves with the number of answers
 * after closing the connection.
 */
export async function runRpcConnection(net, host, params, connectionIndex, roundTrips, transport = plainTransport) {
  const socket = transport.connect(net, params.port, host);
  await new Promise((resolve, reject) => {
    socket.once(transport.connectEvent, resolve);
    socket.once('error', reject);
  });
  let answer;
  onLines(socket, (line) => {
    const resolve = answer;
    if (resolve === undefined) throw new Error(`Failed to run the TCP workload: an answer nobody asked for: "${line}"`);
    answer = undefined;
    resolve(line);
  });
  let answered = 0;
  for (let i = 0; i < roundTrips; i++) {
    const id = `${connectionIndex}:${i}`;
    const line = await new Promise((resolve) => {
      answer = resolve;
      socket.write(`req ${id} ${params.payload}\n`);
    });
    if (!line.startsWith(`ok ${id} `)) throw new Error(`Failed to run the TCP workload: request ${id} got the answer "${line}"`);
    answered++;
  }
  socket.end();
  return answered;
}

// ---- figure 4: UDP gossip ------------------------------------------------------------------------

/**
 * One gossiping host: a UDP socket on `params.port`; every `intervalMs` it sends a small datagram
 * to a peer picked by its own xorshift stream (not Math.random, so the schedule does not depend
 * on the Math shim); every datagram it receives is parsed and merged into a small table, with a
 * little work. Peers' addresses are resolved once at boot, as a membership list would hold them.
 * Counts what it sends and receives in `stats` ({ sent, received }, shared by every host).
 */
export async function startGossipHost(dgram, dns, hostIndex, params, stats) {
  const peerNames = [];
  for (let h = 0; h < params.hostsCount; h++) if (h !== hostIndex) peerNames.push(gossipHostName(h));
  const peers = [];
  for (const name of peerNames) peers.push((await dns.promises.lookup(name, { family: 4 })).address);
  const socket = dgram.createSocket('udp4');
  await new Promise((resolve) => socket.bind(params.port, resolve));
  const nextUint32 = delayStream(hostIndex, 0x9055);
  const ring = new Array(8);
  const heard = new Map();
  let round = 0;
  let received = 0;
  socket.on('message', (msg) => {
    received++;
    stats.received++;
    const [from, theirRound] = msg.toString('latin1').split(' ');
    const seen = heard.get(from);
    if (seen === undefined || seen < Number(theirRound)) heard.set(from, Number(theirRound));
    littleWork(ring, received);
  });
  setInterval(() => {
    round++;
    const peer = peers[nextUint32() % peers.length];
    socket.send(`${hostIndex} ${round} ${heard.size}`, params.port, peer);
    stats.sent++;
  }, params.intervalMs);
}

export function gossipHostName(hostIndex) {
  return `peer-${hostIndex}`;
}
