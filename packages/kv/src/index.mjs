// @dst-runtime/kv: a distributed transactional KV store in plain Node (no dependencies).
export { startReplica, Replica, bugsFromEnv, BUG_NAMES } from './replica.mjs';
export { KvClient, KvUnknownError } from './client.mjs';
