// Compile-time stand-ins for the runners' own types: dst-runtime does not install Vitest or Jest.
// The emitted declarations import the real ones from the user's project (dist/vitest.d.ts, ...).
declare module 'vitest' {
  export interface TestContext {
    signal: AbortSignal;
    task: { name: string; timeout: number };
    onTestFinished(fn: () => unknown): void;
  }
  type TestFunction = (name: string, fn: (context: TestContext) => unknown, timeout?: number) => void;
  export const test: TestFunction & { only: TestFunction; skip: TestFunction };
}
declare module '@jest/globals' {
  type TestFunction = (name: string, fn: () => unknown, timeout?: number) => void;
  export const test: TestFunction & { only: TestFunction; skip: TestFunction };
}
