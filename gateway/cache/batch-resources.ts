// What a `$batch` touches, part by part, for the rate limiter (each operation counts against its
// own class, as it would alone) and the read cache (the sets its writes outdate): every operation
// is classified by request-resources.ts as if it had come alone to the passthrough face. The
// passthrough tallies the parts while it reads the body (passthrough/batch-request.ts); the
// limiter and the cache read the tally from the request afterwards.
//
// An operation whose URL cannot be placed (an absolute path outside the face's root, a Content-ID
// reference followed by a path) is taken at its widest: a write outdates every set.
import type { FastifyRequest } from 'fastify';
import type { BatchOperation, BatchPart } from '../../odata/batch-request-reader.js';
import type { RequestResource, ResourceClassifier } from './request-resources.js';

export interface BatchResources {
  /** Operations per limit class (`read`, `write`, or a function's group such as `stopwatch`). */
  readonly charges: ReadonlyMap<string, number>;
  /** The sets its writes outdate (sorted, unique). */
  readonly invalidates: readonly string[];
}

/** The path of an operation's URL as the passthrough face sees it, or undefined outside it. */
function facePath(url: string, odataBasePath: string): string | undefined {
  if (url.startsWith('/')) return url;
  if (/^https?:\/\//i.test(url)) {
    try {
      const parsed = new URL(url);
      return parsed.pathname + parsed.search;
    } catch {
      return undefined;
    }
  }
  return `${odataBasePath}/${url}`;
}

/** Adds up the parts of one batch as they are read. */
export class BatchTally {
  private readonly charges = new Map<string, number>();
  private readonly invalidates = new Set<string>();

  constructor(private readonly classify: ResourceClassifier, private readonly odataBasePath: string) {}

  add(part: BatchPart): void {
    if (part.kind === 'retrieve') {
      this.count(this.resourceOf(part.operation, undefined));
      return;
    }
    const byContentId = new Map<string, RequestResource>();
    for (const operation of part.operations) {
      const resource = this.resourceOf(operation, byContentId);
      if (operation.contentId !== undefined) byContentId.set(operation.contentId, resource);
      this.count(resource);
    }
  }

  result(): BatchResources {
    return { charges: this.charges, invalidates: [...this.invalidates].sort() };
  }

  private count(resource: RequestResource): void {
    this.charges.set(resource.routeClass, (this.charges.get(resource.routeClass) ?? 0) + 1);
    for (const set of resource.invalidates) this.invalidates.add(set);
  }

  private resourceOf(operation: BatchOperation, byContentId: ReadonlyMap<string, RequestResource> | undefined): RequestResource {
    const { method, url } = operation;
    // `$1` is what the changeset's request of Content-ID 1 created or addressed.
    if (url.startsWith('$') && byContentId !== undefined) {
      const referenced = byContentId.get(url.slice(1));
      if (referenced !== undefined) return referenced;
    }
    const path = facePath(url, this.odataBasePath);
    const resource = path === undefined ? undefined : this.classify(method, path);
    // The service root itself: a write there is unknown, and outdates every set.
    return resource ?? (this.classify(method, `${this.odataBasePath}/`) as RequestResource);
  }
}

const tallies = new WeakMap<FastifyRequest, BatchResources>();

export function recordBatch(request: FastifyRequest, resources: BatchResources): void {
  tallies.set(request, resources);
}

/** The tally of the batch `request` carries, once its body has been read. */
export function batchOf(request: FastifyRequest): BatchResources | undefined {
  return tallies.get(request);
}
