// Keeps a long-running subcommand alive until SIGINT or SIGTERM, then stops it gracefully. The
// handlers are one-shot: a second signal while stopping meets Node's default and ends the process.
export function untilSignal(stop: () => Promise<void>, log: (line: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      log(`${signal}: finishing in-flight requests, then stopping`);
      stop().then(() => resolve(0), (error: unknown) => {
        log(`stopping failed: ${error instanceof Error ? error.message : String(error)}`);
        resolve(1);
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
