// Rate-limit counters in this process (the default): a Map swept of ended windows now and then.
import type { CounterStore, Taken, WindowCount } from './counter-store.js';

interface Window {
  count: number;
  readonly endsAt: number;
}

const SWEEP_MS = 30_000;

export class MemoryCounterStore implements CounterStore {
  readonly #windows = new Map<string, Window>();
  readonly #sweeper: NodeJS.Timeout;

  constructor() {
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_MS);
    this.#sweeper.unref();
  }

  hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = Date.now();
    let window = this.#windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      window = { count: 0, endsAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.count++;
    return Promise.resolve({ count: window.count, resetMs: window.endsAt - now });
  }

  take(key: string, windowMs: number, amount: number, limit: number): Promise<Taken> {
    const now = Date.now();
    let window = this.#windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      if (amount < 0) return Promise.resolve({ count: 0, resetMs: windowMs, isTaken: false });
      window = { count: 0, endsAt: now + windowMs };
      this.#windows.set(key, window);
    }
    const isTaken = window.count + amount <= limit;
    if (isTaken) window.count = Math.max(0, window.count + amount);
    return Promise.resolve({ count: window.count, resetMs: window.endsAt - now, isTaken });
  }

  close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#windows.clear();
    return Promise.resolve();
  }

  #sweep(): void {
    const now = Date.now();
    for (const [key, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(key);
  }
}
