import { setTimeout as sleep } from 'node:timers/promises';
import main from './client.mjs';
await sleep(Number(process.env.WAIT ?? 5000));
await main();
