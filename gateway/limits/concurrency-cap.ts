// At most `perKey` requests of one caller at the upstream at once (the original service served a
// user one request at a time), per gateway process. Beyond the cap a request waits in line
// (first come, first served) or is refused, as configured; a full line or a long wait refuses.
import type { ConcurrencyConfig } from './rate-limit-config.js';

export type Release = () => void;

interface Waiter {
  readonly grant: (release: Release) => void;
  readonly timer: NodeJS.Timeout;
}

interface Lane {
  active: number;
  readonly waiting: Waiter[];
}

export type AcquireOutcome = { readonly release: Release } | { readonly refused: string };

export class ConcurrencyCap {
  readonly #config: ConcurrencyConfig;
  readonly #lanes = new Map<string, Lane>();

  constructor(config: ConcurrencyConfig) {
    this.#config = config;
  }

  get isActive(): boolean {
    return this.#config.perKey > 0;
  }

  /** A slot for `key` (its release must be called once), or why none is given. */
  acquire(key: string): Promise<AcquireOutcome> {
    let lane = this.#lanes.get(key);
    if (lane === undefined) {
      lane = { active: 0, waiting: [] };
      this.#lanes.set(key, lane);
    }
    if (lane.active < this.#config.perKey) {
      lane.active++;
      return Promise.resolve({ release: this.#releaser(key, lane) });
    }
    if (this.#config.mode === 'reject') {
      return Promise.resolve({ refused: `at most ${this.#config.perKey} requests of one key may be in progress at once` });
    }
    if (lane.waiting.length >= this.#config.maxQueued) {
      return Promise.resolve({ refused: `${lane.waiting.length} requests of this key are already waiting` });
    }
    const current = lane;
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: (release) => {
          clearTimeout(waiter.timer);
          resolve({ release });
        },
        timer: setTimeout(() => {
          const at = current.waiting.indexOf(waiter);
          if (at >= 0) current.waiting.splice(at, 1);
          this.#dropIfIdle(key, current);
          resolve({ refused: `waited ${this.#config.queueTimeoutMs} ms for an earlier request of this key` });
        }, this.#config.queueTimeoutMs),
      };
      current.waiting.push(waiter);
    });
  }

  #releaser(key: string, lane: Lane): Release {
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      const next = lane.waiting.shift();
      // The slot passes straight to the next in line, so nobody can overtake it.
      if (next !== undefined) next.grant(this.#releaser(key, lane));
      else {
        lane.active--;
        this.#dropIfIdle(key, lane);
      }
    };
  }

  #dropIfIdle(key: string, lane: Lane): void {
    if (lane.active === 0 && lane.waiting.length === 0 && this.#lanes.get(key) === lane) this.#lanes.delete(key);
  }
}
