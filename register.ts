/**
 * `node --import dst-runtime/register app.js` (or `--require`): runs app.js as simulated host
 * "main" on virtual time, under DST_SEED. Load it first, before any other preload.
 */
import { startRegisterMode } from './shims/register-mode.js';

startRegisterMode();
