// The scenario-or-app probe: `dst` runs this as the entry of a child process under register mode
// (node --import dst-runtime/register cli/probe.mjs <file>), so the file is never executed in the
// CLI's own process. It imports the file, writes "scenario" or "app" to DST_PROBE_OUT and exits
// at once: an app's top-level code runs (simulated), nothing it schedules does (DST_EVENT_LIMIT=1).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

let verdict = 'app';
try {
  const mod = await import(pathToFileURL(path.resolve(process.argv[2])).href);
  if (mod.default?.kind === 'dst-scenario') verdict = 'scenario';
  else {
    // A file that defines a scenario but does not export it as default is a mistake, not a
    // program that does nothing: it would pass every seed with 0 events.
    const named = Object.keys(mod).filter((key) => mod[key]?.kind === 'dst-scenario');
    const defined = globalThis[Symbol.for('dst-runtime.scenariosDefined')] ?? 0;
    if (named.length > 0) verdict = `misexported named ${named.join(',')}`;
    else if (defined > 0) verdict = 'misexported unexported';
  }
} catch (error) {
  verdict = `error ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
}
writeFileSync(process.env.DST_PROBE_OUT, verdict);
process.exit(0);
