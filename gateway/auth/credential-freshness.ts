// What the upstream last said about each credential, so the read cache serves a stored answer to a
// credential only while the upstream has accepted it within `--auth-ttl` (default 5 s, the
// service's own key-cache window): past that, the request goes upstream and the answer (a 401
// for a revoked key) is the verdict. A refused credential is never served a stale answer either.
// The credential interceptor records the verdicts of every upstream answer, both faces alike:
// a success (2xx, 3xx) accepts, a 401 refuses; anything else says nothing about the key (a 404
// may come before the upstream looked at it). Kept per process, by partition (a hash of the key,
// never the key), in a bounded LRU so that a flood of made-up keys cannot grow it; gateways that
// share a cache on Redis share the verdicts of their fills there too (cache/redis-store.ts).
import { LRUCache } from 'lru-cache';

const MAX_CREDENTIALS = 100_000;

export interface Verdict {
  /** ms since the epoch */
  readonly at: number;
  readonly isAccepted: boolean;
}

/** The later of two verdicts on one credential. */
export function latestVerdict(a: Verdict | undefined, b: Verdict | undefined): Verdict | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b.at > a.at ? b : a;
}

/** What an upstream answer with `status` says of its credential, if anything. */
export function verdictOfStatus(status: number, at: number): Verdict | undefined {
  if (status === 401) return { at, isAccepted: false };
  return status < 400 ? { at, isAccepted: true } : undefined;
}

export class CredentialFreshness {
  readonly #verdicts = new LRUCache<string, Verdict>({ max: MAX_CREDENTIALS });

  constructor(
    /** How long an acceptance lets cached answers be served (0: every read goes upstream). */
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records what an upstream answer with `status` says of the credential of `partition`. */
  record(partition: string, status: number): void {
    const verdict = verdictOfStatus(status, this.now());
    if (verdict !== undefined) this.#verdicts.set(partition, verdict);
  }

  /** The verdict this process saw last, if any. */
  verdictOf(partition: string): Verdict | undefined {
    return this.#verdicts.get(partition);
  }

  /** Whether `verdict` lets cached answers be served without asking the upstream. */
  isFresh(verdict: Verdict | undefined): boolean {
    return verdict !== undefined && verdict.isAccepted && this.now() - verdict.at < this.ttlMs;
  }
}
