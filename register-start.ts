/** Register mode's start (loaded by register.ts once Node's compile cache is on). */
import { startRegisterMode } from './shims/register-mode.js';

startRegisterMode();
