// `--workers N|auto` of `timegate service` and `timegate gateway`: one process per core through
// node:cluster. The primary only supervises: it forks the workers (each runs the very command
// line it was given, as one process), says when all of them listen, restarts one that crashes
// after it was up (one that exits cleanly was stopped on purpose and is not), and on SIGINT/
// SIGTERM asks every worker to finish gracefully and waits for them. The workers share the listening socket (the primary hands connections out in turn) and
// whatever the invariants live in: the database (service) or Redis (gateway).
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { UsageError } from './command.js';
import { STOP_MESSAGE } from './lifecycle.js';

/** The most workers `--workers` accepts: far beyond any core count, short of a fork bomb. */
const MAX_WORKERS = 256;
/** How much longer than its own grace period a worker gets before it is killed. */
const EXIT_MARGIN_MS = 5_000;

export const WORKERS_HELP = `  --workers <n|auto>  processes sharing the port, one per core with auto (default 1)`;

/** `--workers`: a count, `auto` (one per core), or 1 when not given. */
export function workersOption(text: string | undefined): number {
  if (text === undefined) return 1;
  if (text === 'auto') return availableParallelism();
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_WORKERS) {
    throw new UsageError(`--workers must be auto or a whole number from 1 to ${MAX_WORKERS}, not '${text}'`);
  }
  return Number(text);
}

/** Whether this process is to supervise `count` workers rather than serve itself. */
export function isSupervisor(count: number): boolean {
  return count > 1 && cluster.isPrimary;
}

/** What a worker tells the primary once it listens. */
interface ReadyMessage {
  readonly timegate: 'ready';
  readonly listening: Record<string, unknown>;
}


/** What a worker tells the primary when its start failed: the line the command would print. */
interface FailedMessage {
  readonly timegate: 'failed';
  readonly message: string;
}

function isReady(message: unknown): message is ReadyMessage {
  return typeof message === 'object' && message !== null && (message as { timegate?: unknown }).timegate === 'ready';
}

function isFailed(message: unknown): message is FailedMessage {
  return typeof message === 'object' && message !== null && (message as { timegate?: unknown }).timegate === 'failed';
}

export interface SuperviseOptions {
  readonly count: number;
  /** Added to every worker's environment (e.g. one cursor secret for all). */
  readonly env?: NodeJS.ProcessEnv;
  /** The worker's own grace period: how long a graceful stop may take. */
  readonly graceMs: number;
  /** Logs one event (pino-style: fields, then the message). */
  readonly log: (level: 'info' | 'error', fields: Record<string, unknown>, message: string) => void;
}

/** Workers started by startWorkers(). */
export interface Workers {
  /** What the first worker reported, once every worker listens; rejects if one failed to start. */
  readonly listening: Promise<Record<string, unknown>>;
  /** Resolves to the exit code once every worker has exited after stop() or a failed start. */
  readonly exited: Promise<number>;
  /** Asks every worker to finish gracefully (killed after their grace period and a margin). */
  stop(): void;
}

/**
 * Forks `count` workers and keeps them running: one that crashes after it listened is replaced.
 * A worker that dies before it listened (a port in use, a database that does not open) is not
 * retried: that would fail the same way forever, so every worker is stopped and the start fails.
 */
export function startWorkers(options: SuperviseOptions): Workers {
  const { count, log } = options;
  const ready = new Set<Worker>();
  let stopping = false;
  let announced = false;
  let failure: string | undefined;
  let resolveListening: (fields: Record<string, unknown>) => void = () => {};
  let rejectListening: (error: Error) => void = () => {};
  const listening = new Promise<Record<string, unknown>>((resolve, reject) => {
    resolveListening = resolve;
    rejectListening = reject;
  });
  listening.catch(() => undefined);
  let resolveExited: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => (resolveExited = resolve));

  const stopAll = (code: number) => {
    if (stopping) return;
    stopping = true;
    // A worker that already died may still be listed (until its IPC channel closes): waiting for
    // its 'exit' would wait for good.
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
    if (workers.length === 0) resolveExited(code);
    const killer = setTimeout(() => {
      for (const worker of workers) worker.process.kill('SIGKILL');
    }, options.graceMs + EXIT_MARGIN_MS);
    let left = workers.length;
    for (const worker of workers) {
      worker.once('exit', () => {
        if (--left > 0) return;
        clearTimeout(killer);
        resolveExited(code);
      });
      // To a worker that listens, a message, not a signal: on Ctrl+C the terminal already sent
      // each worker SIGINT, and a second signal would end it at once instead of after its
      // in-flight requests. One still starting serves nothing yet, and may not listen for
      // messages yet: SIGTERM ends it either way.
      if (ready.has(worker) && worker.isConnected()) worker.send(STOP_MESSAGE);
      else worker.process.kill('SIGTERM');
    }
  };

  const fork = () => {
    const worker = cluster.fork(options.env ?? {});
    worker.on('message', (message: unknown) => {
      if (isFailed(message)) failure ??= message.message;
      if (!isReady(message)) return;
      ready.add(worker);
      if (!announced && ready.size === count) {
        announced = true;
        log('info', { ...message.listening, workers: count }, `all ${count} workers listening`);
        resolveListening(message.listening);
      }
    });
    worker.once('exit', (code, signal) => {
      if (stopping) return;
      // A clean exit is a worker that was told to stop: Ctrl+C in a terminal signals every
      // process of the group, and a worker may finish before the primary (closing the gateway
      // first in `timegate start`) gets to its own handler. Restarting it would start workers
      // the primary's stop no longer waits for.
      if (code === 0 && ready.delete(worker)) {
        log('info', { worker: worker.process.pid }, 'a worker stopped');
        // With none left the primary serves nothing: it ends too rather than linger.
        if (ready.size === 0) stopAll(0);
        return;
      }
      if (ready.delete(worker)) {
        log('error', { worker: worker.process.pid, code, signal }, 'a worker died; starting another');
        fork();
        return;
      }
      // The command reports it, once, with the failed worker's own words.
      rejectListening(new Error(failure ?? `a worker failed to start (exit code ${code ?? signal})`));
      stopAll(1);
    });
  };
  for (let i = 0; i < count; i++) fork();
  return { listening, exited, stop: () => stopAll(0) };
}

/**
 * Runs `count` workers until SIGINT or SIGTERM; resolves to the exit code, or fails with the
 * first failed worker's error when they could not all start.
 */
export async function supervise(options: SuperviseOptions): Promise<number> {
  const workers = startWorkers(options);
  const onSignal = (signal: NodeJS.Signals) => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    options.log('info', { signal }, `${signal}: stopping ${options.count} workers gracefully`);
    workers.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await Promise.race([workers.listening, workers.exited]);
  } catch (error) {
    await workers.exited;
    throw error;
  } finally {
    void workers.exited.finally(() => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    });
  }
  return workers.exited;
}

/**
 * In a worker: tells the primary it listens (with what to log then); elsewhere nothing. Called
 * once the worker's stop handlers are in place (untilSignal), so the primary may stop it by message.
 */
export function announceReady(listening: Record<string, unknown>): void {
  if (cluster.isWorker && process.send !== undefined) process.send({ timegate: 'ready', listening } satisfies ReadyMessage);
}

/**
 * In a worker whose command failed: hands the error line to the primary, which reports the
 * first one as the command's failure (N workers would otherwise print N copies). False when
 * this is no worker, and the caller prints it itself.
 */
export async function failToPrimary(message: string): Promise<boolean> {
  if (!cluster.isWorker || process.send === undefined || !process.connected) return false;
  const sent = await new Promise<boolean>((resolve) => process.send?.({ timegate: 'failed', message } satisfies FailedMessage, undefined, {}, (error) => resolve(error === null)));
  return sent;
}

/** Ends a worker once its command is done: its IPC channel would keep it alive otherwise. */
export function exitWorker(code: number): void {
  if (cluster.isWorker) process.exit(code);
}
