// What bench/run.ts dispatches: one suite per module, run one after another so they never
// compete for the two cores. A suite's module must be cheap to import (start servers, build
// data and warm up inside run()), because `npm run bench -- name` imports every suite module.

export interface BenchSuite {
  /** What `npm run bench -- <name>` selects; kebab-case, unique. */
  readonly name: string;
  /** One line, printed above the suite's table. */
  readonly description: string;
  /** Measures and prints the suite's table (Markdown, ready for BENCHMARKS.md). */
  run(): Promise<void>;
}
