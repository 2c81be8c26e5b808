// Keeps a long-running subcommand alive until it is asked to stop, then stops it gracefully:
// SIGINT or SIGTERM, and in a `--workers` worker also the primary's stop message or the loss of
// the primary (a worker never outlives it). The signal handlers are one-shot: a second signal
// while stopping meets Node's default and ends the process.
import cluster from 'node:cluster';

/** What the primary of `--workers` sends a worker to stop it (see workers.ts). */
export const STOP_MESSAGE = 'timegate:stop';

export function untilSignal(stop: () => Promise<void>, log: (line: string) => void): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const onStop = (reason: string) => {
      if (stopping) return;
      stopping = true;
      process.off('SIGINT', onStop);
      process.off('SIGTERM', onStop);
      process.off('message', onMessage);
      process.off('disconnect', onDisconnect);
      log(`${reason}: finishing in-flight requests, then stopping`);
      stop().then(() => resolve(0), (error: unknown) => {
        log(`stopping failed: ${error instanceof Error ? error.message : String(error)}`);
        resolve(1);
      });
    };
    const onMessage = (message: unknown) => {
      if (message === STOP_MESSAGE) onStop('asked by the primary');
    };
    const onDisconnect = () => onStop('the primary is gone');
    process.on('SIGINT', onStop);
    process.on('SIGTERM', onStop);
    if (cluster.isWorker) {
      process.on('message', onMessage);
      process.on('disconnect', onDisconnect);
      // The primary may have gone while this worker was still starting: its 'disconnect' has
      // then already been emitted, and the worker would serve on, an orphan holding the port.
      if (!process.connected) onDisconnect();
    }
  });
}
