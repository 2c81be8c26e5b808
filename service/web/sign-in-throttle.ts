// Sign-in attempts, limited per account (the email typed, known or not, so the limit tells
// nothing about who exists) and per client address: failures are counted in a fixed window, and
// once a key has reached its limit every attempt is refused unchecked until the window ends.
// Counters are in this process's memory: behind N replicas an attacker gets N times the budget,
// which scrypt's cost still keeps far below guessing speed.
import { LRUCache } from 'lru-cache';

export interface ThrottleLimits {
  /** Failures of one email within the window before it is locked. */
  readonly perAccount: number;
  /** Failures from one address within the window before it is locked. */
  readonly perAddress: number;
  readonly windowMs: number;
}

export const DEFAULT_THROTTLE_LIMITS: ThrottleLimits = { perAccount: 10, perAddress: 50, windowMs: 15 * 60_000 };

interface Window {
  failures: number;
  readonly startedAt: number;
}

export class SignInThrottle {
  private readonly windows: LRUCache<string, Window>;

  constructor(private readonly limits: ThrottleLimits = DEFAULT_THROTTLE_LIMITS) {
    this.windows = new LRUCache({ max: 100_000, ttl: limits.windowMs });
  }

  /** Whether an attempt for this email from this address is refused without being checked. */
  isLocked(email: string, address: string, now = Date.now()): boolean {
    return this.failures(`a:${email.trim().toLowerCase()}`, now) >= this.limits.perAccount
      || this.failures(`ip:${address}`, now) >= this.limits.perAddress;
  }

  recordFailure(email: string, address: string, now = Date.now()): void {
    for (const key of [`a:${email.trim().toLowerCase()}`, `ip:${address}`]) {
      const window = this.current(key, now);
      if (window === undefined) this.windows.set(key, { failures: 1, startedAt: now });
      else window.failures++;
    }
  }

  /** A successful sign-in clears the account's count (not the address's). */
  recordSuccess(email: string): void {
    this.windows.delete(`a:${email.trim().toLowerCase()}`);
  }

  private current(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    return window !== undefined && now - window.startedAt < this.limits.windowMs ? window : undefined;
  }

  private failures(key: string, now: number): number {
    return this.current(key, now)?.failures ?? 0;
  }
}
