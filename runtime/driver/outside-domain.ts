import { originals } from '../originals.js';

interface DomainProcess {
  domain?: unknown;
}

/**
 * Runs `fn` with no node:domain active. Node's domain module marks every async resource created
 * while a domain is active (its init hook) and enters that domain around the resource's
 * callbacks: the runtime's own immediates and ticks, made while some host code runs in a domain,
 * would otherwise run every later event inside it.
 */
export function outsideDomain<T>(fn: () => T): T {
  const process = originals.process as DomainProcess;
  const domain = process.domain;
  if (domain === null || domain === undefined) return fn();
  process.domain = null;
  try {
    return fn();
  } finally {
    process.domain = domain;
  }
}

/** The active node:domain, if any (read where a simulated handle is made). */
export function activeDomain(): DomainLike | undefined {
  const domain = (originals.process as DomainProcess).domain;
  return domain === null || domain === undefined ? undefined : (domain as DomainLike);
}

export interface DomainLike {
  enter(): void;
  exit(): void;
}
