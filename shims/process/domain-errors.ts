/**
 * What Node's uncaught-exception path does with node:domain, for library mode.
 *
 * In a plain process an exception that escapes a callback goes to Node's global handler
 * (lib/internal/process/execution.js, createOnGlobalUncaughtException): it emits
 * 'uncaughtExceptionMonitor', then, if a capture callback is set, calls it INSTEAD of emitting
 * 'uncaughtException'. node:domain owns that callback (lib/domain.js: no one else may set it once
 * domain is loaded) and sets it exactly while some entered domain has an 'error' listener; it
 * calls `process.domain._errorHandler(error)`, which exits the domain, emits its 'error' and
 * leaves no domain entered. When no domain takes the error, node:domain's own first
 * 'uncaughtException' listener (domainUncaughtExceptionClear) empties the stack before the
 * program's listeners run. In library mode the simulation catches what a host's event throws
 * and none of this happens, so the host crashed where Node delivers to the domain (register mode
 * lets the exception reach Node and was right). lib/domain.js is the same on 20, 22 and 24.
 */
import { executionAsyncResource } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { activeDomain, domainModuleLoaded, type DomainLike } from '../../runtime/driver/outside-domain.js';
import { originals } from '../../runtime/originals.js';

interface NodeDomain extends DomainLike {
  _errorHandler(error: unknown): boolean;
}

interface DomainModule {
  _stack: NodeDomain[];
  active: NodeDomain | null | undefined;
}

const nodeProcess = originals.process;

/** How a domain took an uncaught exception: handled, not its business, or its handler threw. */
export type DomainOutcome = { handled: true } | { handled: false } | { handled: false; thrown: unknown };

/**
 * Gives `error` to the active domain as Node's capture callback would. `{ handled: false }`
 * when no entered domain listens for 'error' (Node would emit 'uncaughtException'); `thrown`
 * when the domain's handler threw, which Node makes fatal (exit code 7) with the new error.
 */
export function giveToDomain(error: unknown): DomainOutcome {
  const domain = activeDomain() as NodeDomain | undefined;
  if (domain === undefined || !nodeProcess.hasUncaughtExceptionCaptureCallback()) return { handled: false };
  try {
    domain._errorHandler(error);
  } catch (thrown) {
    clearDomains();
    return { handled: false, thrown };
  }
  return { handled: true };
}

/**
 * Leaves every entered domain, as domainUncaughtExceptionClear does (stack empty, `process.domain`
 * and `domain.active` null): in Node nothing stays entered after an uncaught exception, and in a
 * simulation the next host's event must not run in a domain of the one that threw.
 */
export function clearDomains(): void {
  if (!domainModuleLoaded() || (nodeProcess as { domain?: unknown }).domain === null) return;
  const domainModule = createRequire(__filename)('node:domain') as DomainModule;
  const stack = domainModule._stack;
  const bottom = stack[0];
  if (bottom !== undefined) {
    // exit() of the only domain left on the stack empties it and updates the capture callback
    // (a domain entered twice would otherwise be exited only down to its last entry).
    stack.length = 0;
    stack.push(bottom);
    bottom.exit();
  }
  stack.length = 0;
  domainModule.active = null;
  (nodeProcess as { domain?: unknown }).domain = null;
}

/**
 * Leaves the domain the current async resource was made in, as node:domain's after hook does:
 * for an error caught inside a runInAsyncScope (a microtask's), which Node only reports once the
 * scope has exited, so such a microtask's throw never reaches the domain it was queued in.
 */
export function leaveScopeDomain(): void {
  if (activeDomain() === undefined) return;
  const domain = (executionAsyncResource() as { domain?: DomainLike | null }).domain;
  if (domain !== undefined && domain !== null) domain.exit();
}
