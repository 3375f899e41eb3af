// An mqtt.js client as a simulated host (bench figures 10 and 11). MQTT_ROLE=sub subscribes to
// bench/readings with QoS 1 and records what arrives; MQTT_ROLE=pub publishes a reading every
// 50 ms with QoS 1. Both record into the scenario's state (scenarioContext()) when there is one.
import mqtt from 'mqtt';
import { scenarioContext } from '../../dist/index.mjs';

const role = process.env.MQTT_ROLE;
const ctx = scenarioContext();
const state = ctx?.state;
const client = mqtt.connect('mqtt://broker:1883', { clientId: `bench-${role}`, clean: false, reconnectPeriod: 100, connectTimeout: 1000, keepalive: 1 });
if (role === 'sub') {
  client.on('connect', () => client.subscribe('bench/readings', { qos: 1 }));
  client.on('message', (_topic, payload) => {
    state?.received.push(String(payload));
    if (ctx?.phase === 'heal' && state !== undefined) state.receivedInHeal++;
  });
} else if (role === 'pub') {
  let n = 0;
  // performance.timeOrigin differs per incarnation (the host's boot time), so payloads are unique.
  const boot = Math.round(performance.timeOrigin);
  setInterval(() => {
    const payload = `${boot}-${++n}`;
    state?.published.add(payload);
    client.publish('bench/readings', payload, { qos: 1 });
  }, 50);
} else {
  throw new Error(`MQTT_ROLE must be pub or sub, got ${JSON.stringify(role)}`);
}
