// `timegate service|gateway --workers N` as a real process tree (a primary and N node:cluster
// workers), once the primary says every worker listens. Requests are handed to the workers by
// connection, so a test that must reach two different workers opens kept-alive connections and
// asks each which worker it reached: a request to `/whoami-<tag>` is logged (pino, with the
// worker's pid) under that URL.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { logFields, startTimegateProcess } from './timegate-process.js';

export interface WorkersProcess {
  /** What the primary logged once all workers listened (root, rest, ...). */
  readonly listening: Record<string, unknown>;
  readonly origin: string;
  readonly child: ChildProcess;
  /** Log lines of the primary and the workers so far (pino JSON). */
  readonly logs: string[];
  /** The pids of the primary's live children (its workers), from /proc. */
  workerPids(): number[];
  /** SIGTERM to the primary; the exit code once it has stopped. */
  stop(): Promise<number | null>;
}

const STARTUP_TIMEOUT_MS = 60_000;

export async function startWorkersProcess(command: 'service' | 'gateway', args: readonly string[]): Promise<WorkersProcess> {
  const { ready: listening, child, logs, exited } = await startTimegateProcess(command, args, {
    timeoutMs: STARTUP_TIMEOUT_MS, listening: (fields) => (fields.workers === undefined ? undefined : fields),
  });
  return {
    listening,
    origin: new URL(String(listening.root ?? listening.rest)).origin,
    child,
    logs,
    workerPids: () => childrenOf(child.pid as number),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** One kept-alive connection to `origin`: every request on it reaches the same worker. */
export interface Connection {
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>;
  send(method: string, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>;
  close(): void;
}

export function openConnection(origin: string): Connection {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
      const req = request(`${origin}${path}`, { method, agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    get: (path, headers = {}) => send('GET', path, headers),
    send,
    close: () => agent.destroy(),
  };
}

/** The pid of the worker that logged a request to `/whoami-<tag>`, waiting for the line. */
export async function workerOf(logs: readonly string[], connection: Connection, tag: string): Promise<number> {
  await connection.get(`/whoami-${tag}`);
  for (let tries = 0; tries < 50; tries++) {
    const line = logs.find((l) => l.includes(`"url":"/whoami-${tag}"`));
    const pid = line === undefined ? undefined : logFields(line)?.pid;
    if (typeof pid === 'number') return pid;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no worker logged /whoami-${tag}`);
}

/**
 * Kept-alive connections, opened until two of them reach different workers (the primary hands
 * connections out in turn, so this takes two or three); the others are closed.
 */
export async function connectionsToTwoWorkers(server: WorkersProcess): Promise<[Connection, Connection]> {
  const opened: Array<{ connection: Connection; pid: number }> = [];
  for (let i = 0; i < 20; i++) {
    const connection = openConnection(server.origin);
    const pid = await workerOf(server.logs, connection, `${Date.now()}-${i}`);
    const other = opened.find((o) => o.pid !== pid);
    if (other !== undefined) {
      for (const o of opened) if (o !== other) o.connection.close();
      return [other.connection, connection];
    }
    opened.push({ connection, pid });
  }
  for (const o of opened) o.connection.close();
  throw new Error('20 connections all reached one worker');
}
