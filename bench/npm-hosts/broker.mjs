// An aedes MQTT broker as a simulated host (bench figures 10 and 11): in-memory persistence, so
// a crash loses its sessions and queued messages, as it would in production.
import net from 'node:net';
import { Aedes } from 'aedes';

const broker = await Aedes.createBroker();
net.createServer(broker.handle).listen(1883);
