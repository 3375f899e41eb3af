// The module host of bench/host-load.mjs: marks the real CPU time and clock around importing the
// target package (DST_BENCH_TARGET, a file: URL), so the load is measured apart from the simulation.
const mark = globalThis[Symbol.for('dst-bench.mark')];
mark('start');
await import(process.env.DST_BENCH_TARGET);
mark('end');
