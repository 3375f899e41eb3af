/**
 * dst-runtime: deterministic simulation testing for Node.js.
 * @packageDocumentation
 */
import './shims/install.js';

export { Sim, type SimResult, type HostOptions } from './runtime/sim.js';
export { type DiskMode, type SimOptions, type RunOptions, DEFAULTS, machineSettings, replayNode } from './runtime/options.js';
export type { CrashPolicy } from './runtime/hosts/lifecycle.js';
export type { ModuleHostSpec } from './runtime/interposer.js';
export type { DiskFaultRule, DiskFaults, DiskLatency } from './runtime/disk/faults.js';
export type { NetworkOptions, FaultOptions } from './runtime/network/network.js';
export type { LinkConfig, LatencyConfig, Rule, PacketInfo, Verdict } from './runtime/network/rules.js';
export { SimulationError, formatFailure, type FailureReport, type FailureKind } from './runtime/failure.js';
export { UsageError, UnsupportedError } from './runtime/errors.js';
export { ExitCode, FAILURE_EXIT_CODES, exitCodeOfFailure, failureKindOfExitCode } from './runtime/exit-codes.js';
export { parseSeed, formatSeed, type SeedInput } from './runtime/random/seed.js';
export { tlsCertificates, type TlsCertificates } from './runtime/tls/certificates.js';
export { formatTimeNs, NS_PER_MS, NS_PER_S } from './runtime/clock/units.js';
export { STARTUP_MS } from './runtime/clock/host-clock.js';
export { always, sometimes, reachable, unreachable, coverage, SafetyViolation, type CoverageEntry } from './runtime/scenario/assertions.js';
export {
  defineScenario,
  runScenario,
  scenarioContext,
  swarmFaults,
  formatFaultMix,
  FAULT_KINDS,
  type FaultKind,
  type ScheduledFault,
  type RunScenarioOptions,
  type Scenario,
  type ScenarioDefinition,
  type ScenarioContext,
  type ScenarioResult,
  type ScenarioFailure,
  type FaultProfile,
  type Invariant,
} from './runtime/scenario/scenario.js';
export {
  FAULT_KINDS as PROGRAM_FAULT_KINDS,
  FAULT_RATES,
  parseFaultSpec,
  formatFaultSpec,
  drawFaultMix,
  type FaultKind as ProgramFaultKind,
  type FaultSpec,
  type FaultMix,
} from './runtime/faults/plan.js';
export {
  forEachSeed,
  scenarioSeeds,
  seedList,
  ScenarioSeedFailure,
  type SeedListOptions,
  type ForEachSeedOptions,
  type DefineTest,
} from './runtime/testing/seeds.js';
export {
  defineSimTest,
  type SimTest,
  type SimTestArgs,
  type SimTestBody,
  type SimTestOptions,
  type SimTestRunner,
  type SimTestRunnerTest,
} from './runtime/testing/sim-test.js';
