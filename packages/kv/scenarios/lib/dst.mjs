// Loads dst-runtime for the scenarios. packages/kv is its own package scope, so the bare name
// 'dst-runtime' resolves only when node_modules links it (a workspace install with dst-runtime
// as a dev dependency). Without that link, the runtime of this repository (its package.json
// exports) is loaded by path: the same files the dst CLI loads, hence the same module instance.
import { readFileSync } from 'node:fs';

const ROOT = new URL('../../../../', import.meta.url);

/** Imports `dst-runtime` ('.') or `dst-runtime/<subpath>`. */
export async function importDst(subpath = '.') {
  const specifier = subpath === '.' ? 'dst-runtime' : `dst-runtime/${subpath}`;
  try {
    return await import(specifier);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes("'dst-runtime'")) throw error;
  }
  const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8'));
  if (pkg.name !== 'dst-runtime') throw new Error(`Failed to load ${specifier}: ${ROOT.pathname} is not the dst-runtime repository`);
  const entry = pkg.exports?.[subpath === '.' ? '.' : `./${subpath}`];
  const target = typeof entry === 'string' ? entry : (entry?.import ?? entry?.default);
  if (target === undefined) {
    const error = new Error(`Failed to load ${specifier}: the dst-runtime package has no export "./${subpath}"`);
    error.code = 'ERR_PACKAGE_PATH_NOT_EXPORTED';
    throw error;
  }
  return import(new URL(target, ROOT).href);
}

export const dst = await importDst();
export const { defineScenario, sometimes, tlsCertificates } = dst;

