// The read cache in front of both faces, as hooks on the root instance, so it sees REST routes and
// the OData passthrough alike and stores what the client would have received:
//
//   onRequest  a GET/HEAD of a cacheable resource (what the model says: collections, entities,
//              `$metadata`; never a function import) with a fresh, current entry in its
//              credential's partition is answered from the store (HIT, 304 when the client's
//              validator matches), but only while the upstream accepted that credential within
//              the auth TTL (auth/credential-freshness.ts); past it the request goes upstream, so
//              a revoked key meets its 401. A miss waits for an identical request already in
//              flight (coalescing) sent under the same counters (none sent before a write it
//              finds), or becomes the one that fills the entry; its conditional headers are held
//              back so the upstream answers in full and the cache can store it.
//   onSend     a filling request's 200 is stored and handed to those waiting; a 5xx is replaced
//              by the stale entry when there is one and the upstream has not refused the
//              credential (stale-if-error, RFC 5861); a write's success (or unknown outcome, 5xx)
//              outdates the sets it touches before the writer hears back, so its next read cannot
//              see the old state. A `$batch` is never served nor stored; the sets its writes
//              outdate (batch-resources.ts) are outdated when its answer has come whole, before the
//              client gets its end (after-answer.ts).
//
// Every entry in flight settles on every path (answer, error, refusal, a client gone before or
// during the lookup) and, whatever happens, by the upstream deadline: a waiting request then goes
// upstream itself (issue 32: one dropped connection blocked a URL until restart).
//
// What the cache did is recorded for cache-headers.ts (Cache-Status, X-Cache, Cache-Control).
// Register it after the rate limiter (cache hits count against limits).
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CredentialFreshness, Verdict } from '../auth/credential-freshness.js';
import { latestVerdict, verdictOfStatus } from '../auth/credential-freshness.js';
import type { CacheMetrics } from '../ops/metrics.js';
import { afterAnswer } from './after-answer.js';
import { batchOf } from './batch-resources.js';
import type { CacheConfig } from './cache-config.js';
import type { CacheFieldRule } from './cache-headers.js';
import { recordOutcome } from './cache-headers.js';
import type { CacheLookup, CacheStore, StoredResponse } from './cache-store.js';
import { isCurrent, isSameGenerations } from './cache-store.js';
import { cacheKeyOf } from './cache-key.js';
import type { Conditional } from './http-caching.js';
import {
  REPLACED_BY_STORED,
  conditionalOf,
  headerOf,
  isNotModified,
  requestDirectives,
  storableSeconds,
  storedHeaders,
} from './http-caching.js';
import type { RequestResource, ResourceClassifier } from './request-resources.js';
import { METADATA_TTL_NAME, resourceOf } from './request-resources.js';
import { bodyBytes, discardPayload } from './payload-bytes.js';
import { HitWriter } from './hit-writer.js';

export interface ReadCacheOptions {
  readonly config: CacheConfig;
  readonly store: CacheStore;
  readonly classify: ResourceClassifier;
  readonly metrics: CacheMetrics;
  readonly freshness: CredentialFreshness;
  /** How long an identical request waits for one in flight before it goes upstream itself. */
  readonly deadlineMs: number;
  /** The caching fields of an answer (cache-headers.ts), for hits written at once. */
  readonly fieldsOf: CacheFieldRule;
}

/** What a filling request hands to those waiting for it. */
interface Filled {
  readonly entry: StoredResponse;
  readonly isStale: boolean;
}

/** A fill in flight, which identical requests may wait for. */
interface InFlight {
  readonly filled: Promise<Filled | undefined>;
  /** The counters it was sent upstream under. */
  readonly generations: readonly number[];
}

/** A request that goes to the upstream to fill `key`. */
interface Fill {
  readonly key: string;
  readonly resource: RequestResource;
  readonly partition: string;
  /** What the shared store said of the credential at the lookup. */
  readonly sharedVerdict: Verdict | undefined;
  readonly ttlSeconds: number;
  /** The dependency counters read before the upstream request. */
  readonly generations: readonly number[];
  readonly stale: StoredResponse | undefined;
  readonly conditional: Conditional | undefined;
  readonly forward: 'miss' | 'stale' | 'request';
  /** Hands the outcome to coalesced requests (once; later calls do nothing). */
  readonly settle: (filled: Filled | undefined) => void;
}

const POLL_MS = 20;
const NO_SETTLE = (): void => {};

function ageSeconds(entry: StoredResponse, now: number): string {
  return String(Math.max(0, Math.floor((now - entry.storedAt) / 1000)));
}

function secondsLeft(entry: StoredResponse, now: number): number {
  return Math.floor((entry.freshUntil - now) / 1000);
}

function notModified(reply: FastifyReply): void {
  reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
}

function setStoredHeaders(reply: FastifyReply, entry: StoredResponse, now: number): void {
  for (const [name, value] of entry.headers) reply.header(name, value);
  reply.header('age', ageSeconds(entry, now));
}

function answersCondition(conditional: Conditional | undefined, entry: StoredResponse): boolean {
  return conditional !== undefined && isNotModified(conditional, headerOf(entry.headers, 'etag'), headerOf(entry.headers, 'last-modified'));
}

/** `promise`, or undefined once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function registerReadCache(app: FastifyInstance, options: ReadCacheOptions): void {
  const { config, store, classify, metrics, freshness, deadlineMs } = options;
  const hits = new HitWriter(options.fieldsOf);
  // While the gateway closes, answers carry Connection: close (ops-plugin.ts): theirs go the long way.
  let isClosing = false;
  app.addHook('preClose', (done) => {
    isClosing = true;
    done();
  });

  /**
   * Answers from a stored entry, in the onRequest hook: written at once when it can be (a GET, no
   * validator to compare, nothing that asks for Connection: close), which needs no done() (true);
   * else sent the usual way.
   */
  function serve(request: FastifyRequest, reply: FastifyReply, entry: StoredResponse, conditional: Conditional | undefined, isCollapsed: boolean): boolean {
    const now = Date.now();
    const isPlainGet = request.method === 'GET' && conditional === undefined && request.headers.expect === undefined && !isClosing;
    if (isPlainGet && hits.write(reply, entry, now, request.credential.key !== undefined, isCollapsed)) return true;
    setStoredHeaders(reply, entry, now);
    recordOutcome(request, { kind: 'hit', ttlSeconds: secondsLeft(entry, now), isCollapsed });
    if (answersCondition(conditional, entry)) {
      notModified(reply);
      reply.send();
      return false;
    }
    if (request.method === 'HEAD') {
      // The length of the GET it stands for (RFC 9110 §9.3.2), without the body.
      reply.code(entry.status).header('content-length', String(entry.body.length)).send();
      return false;
    }
    reply.code(entry.status).send(entry.body);
    return false;
  }

  const inflight = new Map<string, InFlight>();
  const fills = new WeakMap<FastifyRequest, Fill>();
  const writes = new WeakMap<FastifyRequest, RequestResource>();
  const batches = new WeakSet<FastifyRequest>();

  const ttlSecondsOf = (resource: RequestResource): number => {
    if (resource.ttlName === METADATA_TTL_NAME) return config.metadataTtlSeconds;
    return (resource.ttlName === undefined ? undefined : config.ttlSecondsBySet[resource.ttlName]) ?? config.defaultTtlSeconds;
  };

  // A store that fails (Redis away) turns the cache off for the request, never the request off.
  async function lookup(request: FastifyRequest, key: string, sets: readonly string[]): Promise<CacheLookup | undefined> {
    try {
      return await store.lookup(key, sets, request.credential.partition);
    } catch (error) {
      request.log.warn({ err: error }, 'cache lookup failed; answering without the cache');
      return undefined;
    }
  }

  /** The entry under `key` when it is current and fresh. */
  async function freshEntry(request: FastifyRequest, key: string, resource: RequestResource): Promise<StoredResponse | undefined | 'unavailable'> {
    const found = await lookup(request, key, resource.dependsOn);
    if (found === undefined) return 'unavailable';
    const entry = found.entry;
    return entry !== undefined && isCurrent(entry, found.generations) && entry.freshUntil > Date.now() ? entry : undefined;
  }

  /**
   * The right to fill `key` (undefined), or the entry another instance filled meanwhile: a claim
   * won just after the other instance stored its entry and gave its claim up is checked against
   * the store once more, so that instance's upstream call is not repeated.
   */
  async function claimOrAwait(request: FastifyRequest, key: string, resource: RequestResource): Promise<StoredResponse | undefined> {
    const deadline = Date.now() + config.fillClaimMs;
    for (let isFirst = true; isFirst || Date.now() < deadline; isFirst = false) {
      if (!isFirst) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (request.raw.destroyed) return undefined;
      const isClaimed = await claimFill(request, key);
      const entry = await freshEntry(request, key, resource);
      if (entry === 'unavailable') return undefined;
      if (entry !== undefined) {
        if (isClaimed) releaseFill(request, key);
        return entry;
      }
      if (isClaimed) return undefined;
    }
    return undefined;
  }

  function releaseFill(request: FastifyRequest, key: string): void {
    store.releaseFill(key).catch((error: unknown) => request.log.warn({ err: error }, 'cache fill release failed'));
  }

  async function claimFill(request: FastifyRequest, key: string): Promise<boolean> {
    try {
      return await store.claimFill(key, config.fillClaimMs);
    } catch (error) {
      request.log.warn({ err: error }, 'cache fill claim failed');
      return true;
    }
  }

  /**
   * Opens the in-flight entry of `key`; it settles on the first of: the answer (onSend), the
   * response done or the connection closed, and the deadline.
   */
  function lead(request: FastifyRequest, reply: FastifyReply, key: string, generations: readonly number[]): (filled: Filled | undefined) => void {
    let settle: (filled: Filled | undefined) => void = NO_SETTLE;
    const promise = new Promise<Filled | undefined>((resolve) => {
      let isSettled = false;
      const timer = setTimeout(() => settle(undefined), deadlineMs);
      timer.unref();
      settle = (filled) => {
        if (isSettled) return;
        isSettled = true;
        clearTimeout(timer);
        if (inflight.get(key)?.filled === promise) inflight.delete(key);
        releaseFill(request, key);
        resolve(filled);
      };
    });
    inflight.set(key, { filled: promise, generations });
    reply.raw.once('close', () => settle(undefined));
    return settle;
  }

  /** What the store knows of `key` without waiting, if anything (a failing store: nothing). */
  function peek(request: FastifyRequest, key: string, sets: readonly string[]): CacheLookup | undefined {
    if (store.peek === undefined) return undefined;
    try {
      return store.peek(key, sets, request.credential.partition);
    } catch (error) {
      request.log.warn({ err: error }, 'cache lookup failed; answering without the cache');
      return undefined;
    }
  }

  /**
   * What peek() said, once it may be trusted: at once from a store that is always current; from
   * copies that learn of writes by a push, once they have caught up with the writes acknowledged
   * before this request came (a write answered through another instance can be pushed to this one
   * after its client's next request has arrived here); else undefined (ask the store).
   */
  async function caughtUp(request: FastifyRequest, key: string, sets: readonly string[], known: CacheLookup | undefined): Promise<CacheLookup | undefined> {
    if (known === undefined || store.catchUp === undefined) return known;
    try {
      if (!(await store.catchUp())) return undefined;
    } catch (error) {
      request.log.warn({ err: error }, 'cache copies could not catch up; asking the store');
      return undefined;
    }
    return peek(request, key, sets);
  }

  /** The entry `found` holds when it may answer the request now: current, fresh, for a credential the upstream accepted lately. */
  function hitOf(found: CacheLookup, partition: string, mustRevalidate: boolean, now: number): StoredResponse | undefined {
    const entry = found.entry;
    if (entry === undefined || mustRevalidate || entry.freshUntil <= now || !isCurrent(entry, found.generations)) return undefined;
    // Stored answers are for a credential the upstream accepted a moment ago, or for no one.
    return freshness.isFresh(latestVerdict(freshness.verdictOf(partition), found.verdict)) ? entry : undefined;
  }

  // A callback hook, so a hit the store knows at once (peek) is answered without a promise; the
  // rest (copies catching up, a lookup on Redis, waiting for a fill) continues in lookUp().
  app.addHook('onRequest', (request, reply, done) => {
    const resource = resourceOf(request, classify);
    if (resource === undefined) return done();
    if (resource.isWrite) {
      writes.set(request, resource);
      return done();
    }
    if (resource.isBatch === true) {
      batches.add(request);
      return done();
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return done();
    const directives = requestDirectives(request.headers);
    const ttlSeconds = ttlSecondsOf(resource);
    if (!resource.isCacheable || directives.noStore || ttlSeconds <= 0) {
      recordOutcome(request, { kind: 'forward', forward: 'bypass' });
      return done();
    }
    const key = cacheKeyOf(resource.face, request.credential.partition, request.url, request.headers);
    const known = peek(request, key, resource.dependsOn);
    // Copies that learn of writes by a push answer only once caught up (lookUp).
    const entry = known === undefined || store.catchUp !== undefined ? undefined : hitOf(known, request.credential.partition, directives.mustRevalidate, Date.now());
    if (entry !== undefined) {
      metrics.cacheLookup(resource.face, 'hit');
      // With the turn's other hits (hit-writer.ts). Sent by reply.send(), the request goes on no
      // further: no done().
      hits.atTurnEnd(() => {
        try {
          if (serve(request, reply, entry, conditionalOf(request.headers), false)) done();
        } catch (error) {
          // Outside the hook now: the face answers the failure, not the process.
          done(error as Error);
        }
      });
      return;
    }
    lookUp(request, reply, resource, key, ttlSeconds, directives.mustRevalidate, known).then(() => done(), done);
  });

  /** The rest of onRequest: the store's answer, a hit, or the fill this request leads or waits for. */
  async function lookUp(request: FastifyRequest, reply: FastifyReply, resource: RequestResource, key: string, ttlSeconds: number,
    mustRevalidate: boolean, known: CacheLookup | undefined): Promise<void> {
    const partition = request.credential.partition;
    const found = (await caughtUp(request, key, resource.dependsOn, known)) ?? (await lookup(request, key, resource.dependsOn));
    if (found === undefined) return;
    const now = Date.now();
    const current = found.entry !== undefined && isCurrent(found.entry, found.generations) ? found.entry : undefined;
    const conditional = conditionalOf(request.headers);
    const isCredentialFresh = freshness.isFresh(latestVerdict(freshness.verdictOf(partition), found.verdict));
    const hit = hitOf(found, partition, mustRevalidate, now);
    if (hit !== undefined) {
      metrics.cacheLookup(resource.face, 'hit');
      serve(request, reply, hit, conditional, false);
      return;
    }
    const stale = current !== undefined && current.staleUntil > now ? current : undefined;
    const forward = mustRevalidate ? 'request' : current !== undefined ? 'stale' : 'miss';
    // A HEAD has no body to store: it passes through.
    if (request.method === 'HEAD') {
      metrics.cacheLookup(resource.face, 'miss');
      recordOutcome(request, { kind: 'forward', forward });
      return;
    }

    // `no-cache`, and a credential to check again, ask for the upstream's answer now: such a
    // request neither waits for nor leads others.
    let isLeader = false;
    if (!mustRevalidate && isCredentialFresh) {
      const pending = inflight.get(key);
      // One sent upstream before a write this request found could answer with what was before it.
      if (pending !== undefined && isSameGenerations(pending.generations, found.generations)) {
        const filled = await within(pending.filled, deadlineMs);
        if (filled !== undefined) {
          metrics.cacheLookup(resource.face, filled.isStale ? 'stale' : 'hit');
          serve(request, reply, filled.entry, conditional, true);
          return;
        }
      } else if (pending === undefined) {
        const entry = await claimOrAwait(request, key, resource);
        if (entry !== undefined) {
          metrics.cacheLookup(resource.face, 'hit');
          serve(request, reply, entry, conditional, false);
          return;
        }
      }
      isLeader = !inflight.has(key);
    }
    // Gone while the store was asked: nothing to answer, nobody to lead.
    if (request.raw.destroyed || reply.raw.destroyed) return;

    metrics.cacheLookup(resource.face, 'miss');
    const settle = isLeader ? lead(request, reply, key, found.generations) : NO_SETTLE;
    fills.set(request, { key, resource, partition, sharedVerdict: found.verdict, ttlSeconds, generations: found.generations, stale, conditional, forward, settle });
    recordOutcome(request, { kind: 'forward', forward });
    if (conditional !== undefined) {
      delete request.headers['if-none-match'];
      delete request.headers['if-modified-since'];
    }
  }

  const outdate = async (request: FastifyRequest, sets: readonly string[]): Promise<void> => {
    try {
      await store.invalidate(sets);
    } catch (error) {
      request.log.error({ err: error, sets }, 'cache invalidation failed; sent again once Redis answers (other instances see the write only then)');
    }
  };

  app.addHook('onSend', async (request, reply, payload) => {
    if (batches.has(request)) {
      batches.delete(request);
      const sets = batchOf(request)?.invalidates ?? [];
      // Refused whole (4xx): nothing of it ran.
      if (sets.length === 0 || (reply.statusCode >= 400 && reply.statusCode < 500)) return payload;
      if (!(payload instanceof Readable)) {
        await outdate(request, sets);
        return payload;
      }
      return afterAnswer(payload, () => outdate(request, sets), () => void outdate(request, sets));
    }
    const written = writes.get(request);
    if (written !== undefined) {
      writes.delete(request);
      // 4xx: refused, nothing changed. 5xx: the write may have happened; outdate to be safe.
      if (reply.statusCode < 400 || reply.statusCode >= 500) await outdate(request, written.invalidates);
      return payload;
    }
    const fill = fills.get(request);
    if (fill === undefined) return payload;
    fills.delete(request);
    const now = Date.now();
    const status = reply.statusCode;

    // The upstream's verdict on this answer, for the other instances (fire and forget). A refusal
    // is shared only where an acceptance was: made-up keys must not fill the store.
    const verdict = verdictOfStatus(status, now);
    if (verdict !== undefined && (verdict.isAccepted || fill.sharedVerdict?.isAccepted === true)) {
      store.recordVerdict(fill.partition, verdict).catch((error: unknown) => request.log.warn({ err: error }, 'cache verdict store failed'));
    }

    const isRefused = latestVerdict(freshness.verdictOf(fill.partition), fill.sharedVerdict)?.isAccepted === false;
    if (status >= 500 && fill.stale !== undefined && !isRefused) {
      discardPayload(payload);
      for (const name of REPLACED_BY_STORED) reply.removeHeader(name);
      setStoredHeaders(reply, fill.stale, now);
      metrics.cacheLookup(fill.resource.face, 'stale');
      recordOutcome(request, { kind: 'stale', forward: fill.forward, ttlSeconds: secondsLeft(fill.stale, now), upstreamStatus: status });
      fill.settle({ entry: fill.stale, isStale: true });
      if (answersCondition(fill.conditional, fill.stale)) {
        notModified(reply);
        return null;
      }
      reply.code(fill.stale.status);
      return fill.stale.body;
    }

    const seconds = storableSeconds(status, reply.getHeaders(), fill.ttlSeconds);
    const declaredLength = Number(reply.getHeader('content-length'));
    if (seconds === undefined || declaredLength > config.maxEntryBytes) {
      fill.settle(undefined);
      return payload;
    }
    const body = await bodyBytes(payload);
    if (body.length > config.maxEntryBytes) {
      fill.settle(undefined);
      return body;
    }
    const freshUntil = now + seconds * 1000;
    const entry: StoredResponse = {
      status,
      headers: storedHeaders(reply.getHeaders()),
      body,
      storedAt: now,
      freshUntil,
      staleUntil: freshUntil + config.staleIfErrorSeconds * 1000,
      generations: fill.generations,
    };
    try {
      // Awaited, so the client's next request (to any instance) finds the entry.
      await store.store(fill.key, entry, entry.staleUntil - now);
    } catch (error) {
      request.log.warn({ err: error }, 'cache store failed');
    }
    recordOutcome(request, { kind: 'forward', forward: fill.forward, storedSeconds: seconds });
    fill.settle({ entry, isStale: false });
    if (answersCondition(fill.conditional, entry)) {
      notModified(reply);
      return null;
    }
    return body;
  });

  // An answer that never reached onSend (the connection died first) still lets the others go.
  app.addHook('onResponse', (request, _reply, done) => {
    fills.get(request)?.settle(undefined);
    done();
  });
}
