// Where the rate limiter counts, behind one small interface (as @fastify/rate-limit's
// store/LocalStore and store/RedisStore): memory-counter-store.ts for one process,
// redis-counter-store.ts for several gateways that must share one exact budget.
//
// The algorithm is a fixed window that starts with the first request: the first hit of a key sets
// its count to 1 and its expiry to the window; later hits increment. Exact across instances on
// Redis (INCR is atomic), and a budget of N lets exactly N requests through per window.

export interface WindowCount {
  /** Requests counted in the current window, this one included. */
  readonly count: number;
  /** ms until the window ends. */
  readonly resetMs: number;
}

/** What take() did. */
export interface Taken extends WindowCount {
  /** Whether the hits were added; `count` is then the count with them, else the count without. */
  readonly isTaken: boolean;
}

export interface CounterStore {
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /**
   * Adds `amount` hits at once (the operations of a `$batch`) if the count stays within `limit`,
   * else none: a batch refused takes nothing of the budget. A negative `amount` gives hits back
   * to a window that is still open (a batch refused by another of its budgets).
   */
  take(key: string, windowMs: number, amount: number, limit: number): Promise<Taken>;
  close(): Promise<void>;
}
