// The part of the generated client.ts that is the same for every model but an example: options, errors and the fetch transport
// the per-set resource classes call. Kept as source text because it is copied verbatim into
// every generated client (which must have no runtime dependency); the generated file is
// type-checked and linted by the client tests, so this text is too.
import { SELECTION_SUFFIX } from './rest-surface.js';

/** The runtime's text, `selectExample` (description-examples.ts) in its documentation. */
export function clientRuntimeSource(selectExample: string): string {
  return `
/** How to reach and authenticate with the REST face. */
export interface ClientOptions {
  /** Base URL of the REST face including its path, e.g. \`https://example.com/api/v1\`. */
  readonly baseUrl: string;
  /** The API key; requests are sent unauthenticated without it. */
  readonly apiKey?: string;
  /** How the key is sent: \`X-ServiceApiKey\` header (default), bearer token, or basic-auth password. */
  readonly auth?: 'header' | 'bearer' | 'basic';
  /** The fetch to use (default: the platform's). */
  readonly fetch?: typeof fetch;
  /** Extra headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface GetOptions {
  /** Only these properties (\`${selectExample}\`): the read goes to its \`${SELECTION_SUFFIX}\` twin and answers the Selection type. */
  readonly select?: string;
  readonly expand?: string;
}

/** A conditional read: resolves to \`null\` when the server answers 304 Not Modified. */
export interface ConditionalGetOptions extends GetOptions {
  readonly ifNoneMatch: string;
}

export interface WriteOptions {
  /** ETag the change is based on; the server refuses with 412 when the resource changed since. */
  readonly ifMatch?: string;
}

/** An RFC 9457 problem answered by the REST face, with its HTTP status. */
export class ProblemError extends Error {
  readonly status: number;
  readonly problem: T.Problem;

  constructor(status: number, problem: T.Problem) {
    super(problem.detail ?? problem.title);
    this.name = 'ProblemError';
    this.status = status;
    this.problem = problem;
  }
}

/**
 * A bulk create (\`createAll\`) refused because of one of its items; none was created. \`index\`
 * is that item's position in the array sent, read off the problem's \`errors\` pointer (\`/3\`,
 * \`/3/startTime\`).
 */
export class BatchItemError extends ProblemError {
  readonly index: number;

  constructor(status: number, problem: T.Problem, index: number) {
    super(status, problem);
    this.name = 'BatchItemError';
    this.index = index;
  }
}

const etags = new WeakMap<object, string>();

/** The ETag the server sent with a resource this client returned, for \`ifMatch\` / \`ifNoneMatch\`. */
export function etagOf(resource: object): string | undefined {
  return etags.get(resource);
}

type QueryObject = object;

interface RequestSpec {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly query?: QueryObject;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string | undefined>>;
}

/** Sends requests to the REST face and turns answers into values or ProblemErrors. */
class Transport {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly headers: Readonly<Record<string, string>>;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch;
    // lowercase names, so a caller's \`Accept\` replaces ours instead of being sent beside it
    const extra = Object.entries(options.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]);
    this.headers = { accept: 'application/json', ...Object.fromEntries(extra), ...authHeaders(options) };
  }

  /** The parsed body (\`undefined\` for 204), or \`null\` for 304 Not Modified. */
  async send<R>(spec: RequestSpec): Promise<R | null> {
    const url = new URL(this.baseUrl + spec.path);
    for (const [name, value] of Object.entries(spec.query ?? {}) as [string, unknown][]) {
      if (value !== undefined && value !== null) url.searchParams.append(name, String(value));
    }
    const headers: Record<string, string> = { ...this.headers };
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      if (value !== undefined) headers[name] = value;
    }
    const init: RequestInit = { method: spec.method, headers };
    if (spec.body !== undefined) {
      headers['content-type'] = spec.contentType ?? 'application/json';
      init.body = JSON.stringify(spec.body);
    }
    const fetchImpl = this.fetch;
    const response = await fetchImpl(url, init);
    if (response.status === 304) return null;
    if (!response.ok) throw await problemOf(response);
    if (response.status === 204) return undefined as R;
    const value = (await response.json()) as R;
    const etag = response.headers.get('etag');
    if (etag !== null && typeof value === 'object' && value !== null) etags.set(value, etag);
    return value;
  }

  /** For requests without \`If-None-Match\`, which cannot be answered with 304. */
  async value<R>(spec: RequestSpec): Promise<R> {
    return (await this.send<R>(spec)) as R;
  }

  /** GET of one resource; with \`ifNoneMatch\`, \`null\` when it is unchanged (304). */
  async getItem<R>(path: string, options?: GetOptions & { readonly ifNoneMatch?: string }): Promise<R | null> {
    const { ifNoneMatch, ...query } = options ?? {};
    return this.send<R>({ method: 'GET', path, query, headers: { 'if-none-match': ifNoneMatch } });
  }

  /** POST of an array to a bulk create: the created items in order, or a BatchItemError naming the refused one. */
  async createAll<R>(path: string, items: readonly unknown[]): Promise<R[]> {
    try {
      return (await this.value<{ readonly items: R[] }>({ method: 'POST', path, body: items })).items;
    } catch (error) {
      const index = error instanceof ProblemError ? itemIndexOf(error.problem) : undefined;
      if (error instanceof ProblemError && index !== undefined) throw new BatchItemError(error.status, error.problem, index);
      throw error;
    }
  }

  /** Every page of a list, following \`next\` until the last. */
  async *pages<R extends { readonly next: string | null }>(path: string, query?: QueryObject): AsyncGenerator<R, void, undefined> {
    let page = await this.value<R>({ method: 'GET', path, query });
    yield page;
    while (page.next !== null) {
      // next addresses the same list; only its query (the cursor) matters, so a base URL
      // behind a path-rewriting proxy keeps working.
      const search = new URL(page.next, 'http://next.invalid').searchParams;
      page = await this.value<R>({ method: 'GET', path, query: Object.fromEntries(search) });
      yield page;
    }
  }
}

function authHeaders(options: ClientOptions): Record<string, string> {
  if (options.apiKey === undefined) return {};
  switch (options.auth ?? 'header') {
    case 'header':
      return { 'x-serviceapikey': options.apiKey };
    case 'bearer':
      return { authorization: \`Bearer \${options.apiKey}\` };
    case 'basic':
      return { authorization: \`Basic \${btoa(\`apikey:\${options.apiKey}\`)}\` };
  }
}

async function problemOf(response: Response): Promise<ProblemError> {
  const fallback: T.Problem = { type: 'about:blank', title: response.statusText || \`HTTP \${response.status}\`, status: response.status };
  const text = await response.text();
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null && 'title' in body && 'status' in body) {
      return new ProblemError(response.status, body as T.Problem);
    }
  } catch {
    // not JSON: the status line is all there is
  }
  return new ProblemError(response.status, text === '' ? fallback : { ...fallback, detail: text.slice(0, 500) });
}

/** The item a bulk create's problem names by its index, if it names one (not so for 401, 413, 429, ...). */
function itemIndexOf(problem: T.Problem): number | undefined {
  const match = /^\\/(\\d+)(?:\\/|$)/.exec(problem.errors?.[0]?.pointer ?? '');
  return match ? Number(match[1]) : undefined;
}

/** A read narrowed by \`select\` is the \`${SELECTION_SUFFIX}\` twin of the plain read, which answers whole entities. */
function readPath(path: string, options?: { readonly select?: string }): string {
  return typeof options?.select === 'string' ? path + '${SELECTION_SUFFIX}' : path;
}

function keySegment(value: string | number | boolean): string {
  return '/' + encodeURIComponent(String(value));
}
`;
}
