// Which upstream requests are idempotent reads, and so safe to retry: GET and HEAD of entity
// sets, entities, `$metadata` and the service document. A GET function import is not: the
// time-tracking service starts and halts stopwatches with GET.

const READ_METHODS = new Set(['GET', 'HEAD']);

/** The first segment of a resource path (`StartStopWatch` of `StartStopWatch?ProjectID=1`). */
function firstSegment(path: string): string {
  const trimmed = path.startsWith('/') ? path.slice(1) : path;
  const end = trimmed.search(/[(/?]/);
  return end < 0 ? trimmed : trimmed.slice(0, end);
}

export class IdempotentReads {
  private readonly functionImports: ReadonlySet<string>;

  /** `functionImportNames`: the upstream model's function imports, never retried. */
  constructor(functionImportNames: Iterable<string>) {
    this.functionImports = new Set([...functionImportNames].map((name) => name.toLowerCase()));
  }

  /** `path` is below the service root. */
  isIdempotentRead(method: string, path: string): boolean {
    return READ_METHODS.has(method) && !this.functionImports.has(firstSegment(path).toLowerCase());
  }
}
