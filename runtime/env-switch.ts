import { UsageError } from './errors.js';

/**
 * A DST_* variable that switches something on (1) or off (0). Unset or empty gives `byDefault`;
 * anything else is refused, saying what the other value does (`otherDoes`).
 */
export function envSwitch(env: NodeJS.ProcessEnv, name: string, byDefault: boolean, otherDoes: string): boolean {
  const text = env[name];
  if (text === undefined || text === '') return byDefault;
  if (text === '1') return true;
  if (text === '0') return false;
  throw new UsageError(`Failed to parse ${name}: ${JSON.stringify(text)} is not 0 or 1 (${name}=${byDefault ? 0 : 1} ${otherDoes})`);
}
