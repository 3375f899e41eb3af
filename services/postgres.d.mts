/** Options of postgres(): see services/postgres.mjs and docs/guide.md. */
export interface PostgresOptions {
  /** Where it listens. Default 5432. */
  port?: number;
  /** The data directory, an absolute path on the host's disk. Default: in memory, empty at every boot. */
  dataDir?: string;
  /** Boot from a prepared data directory instead of running initdb. Default true. */
  template?: boolean;
  /** Clients served at once. Default 16. */
  maxConnections?: number;
  /** Print Postgres' log lines. Default false. */
  log?: boolean;
  /** Where @electric-sql/pglite is installed: a directory, or a file URL beside its node_modules. Default: the working directory. */
  from?: string | URL;
  /** More environment for the host. */
  env?: Record<string, string>;
}

/** A module host spec for sim.host(name, spec). */
export interface PostgresHostSpec {
  main: string;
  env: Record<string, string>;
}

/** A module host that runs Postgres (PGlite) and serves the wire protocol. */
export function postgres(options?: PostgresOptions): PostgresHostSpec;

/** Makes the template data directory once (synchronously, in a child process); returns its path. */
export function preparePostgres(options?: Pick<PostgresOptions, 'from'>): string;

/** The PGlite and pglite-socket versions this service was built and measured with. */
export const TESTED_VERSIONS: Readonly<Record<string, string>>;

/** A usage problem of the service (code DST_POSTGRES): what to install, an option out of range. */
export class PostgresServiceError extends Error {
  readonly code: 'DST_POSTGRES';
}
