// Before and after in one run: with TG_BENCH_BASELINE_TREE=<another checkout> (say
// `git worktree add /tmp/before <commit>` with node_modules copied), the gateway suites also
// start that checkout's gateway, beside this one's, on the same core, in the same rounds, so a
// change is measured against what it changed under the same noise. Unset: nothing extra runs.
import { join } from 'node:path';

/** The other checkout's root, when one is given. */
export const BASELINE_TREE: string | undefined = process.env['TG_BENCH_BASELINE_TREE'] || undefined;

/** A file of the other checkout, e.g. `bench/gateway-passthrough-server.ts`. */
export function baselineFile(tree: string, relative: string): string {
  return join(tree, relative);
}
