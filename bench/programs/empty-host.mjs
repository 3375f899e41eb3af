// A module host that imports nothing: bench/host-load.mjs warms the runtime and Node's loader with it.
export {};
