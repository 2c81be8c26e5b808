// A client that speaks OData V2 the way pyodata (SAP/python-pyodata, the Python client, over
// python-requests) does on the wire; Python's packages are out of reach here, so its requests are
// replayed from what its source sends:
//   - requests' own headers on every call (`User-Agent: python-requests/...`, `Accept-Encoding:
//     gzip, deflate`, `Accept: */*`, keep-alive) and HTTP Basic from the session;
//   - `Accept: application/json` on reads and writes, none on `$metadata`, `/$count` or DELETE;
//     `Content-Type: application/json` and `X-Requested-With: X` on create; no `$format`, no
//     `DataServiceVersion`, no CSRF token, no HEAD;
//   - query options by Python's urlencode (`%24top=5&%24filter=Name+eq+%27a%27`), in its order;
//   - bodies by json.dumps (`{"Name": "x", "Active": true}`, non-ASCII as \uXXXX, dates as
//     "/Date(ms)/"); updates as PATCH, function imports by their m:HttpMethod with literal
//     parameters (`ProjectID=5&Comment=%27text%27&Billable=false`);
//   - exactly one accepted status per call (200, 201, 204), JSON read from `d`, `d.results`,
//     `__count` and `__next` (followed verbatim, so it must be absolute); a property missing from
//     an entity fetched lazily as `Set(key)/Property/` (with the trailing slash).
import { request as httpRequest } from 'node:http';
import { gunzipSync, inflateSync } from 'node:zlib';

type Json = Record<string, unknown>;

const REQUESTS_HEADERS = {
  'user-agent': 'python-requests/2.32.3',
  'accept-encoding': 'gzip, deflate',
  accept: '*/*',
  connection: 'keep-alive',
};
const METADATA_TYPES = ['application/xml', 'application/atom+xml', 'text/xml'];
const EDMX_NAMESPACES = ['http://schemas.microsoft.com/ado/2007/06/edmx', 'http://docs.oasis-open.org/odata/ns/edmx'];
const EDM_NAMESPACES = ['2006/04', '2007/05', '2008/09', '2009/11'].map((v) => `http://schemas.microsoft.com/ado/${v}/edm`);

/** pyodata's HttpError: the one status it wanted was not the one it got. */
export class PyodataHttpError extends Error {
  constructor(message: string, readonly status: number, readonly body: string) {
    super(message);
  }
}

export interface WireAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** Python's urllib.parse.quote_plus: only letters, digits and `_.-~` stay, a space is `+`. */
export function quotePlus(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replaceAll('%20', '+');
}

/** json.dumps with its defaults: `", "` and `": "` between items, anything beyond ASCII escaped. */
export function pythonJsonDumps(values: Readonly<Record<string, string | number | boolean | null>>): string {
  const ascii = (text: string) => text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `{${Object.entries(values).map(([name, value]) => `${ascii(JSON.stringify(name))}: ${ascii(JSON.stringify(value))}`).join(', ')}}`;
}

export class PyodataStyleClient {
  private readonly authorization: string;
  /** Every answer the client got, in order. */
  readonly answers: WireAnswer[] = [];

  /** `serviceUrl`: the service root; pyodata keeps it with one trailing slash. */
  constructor(private readonly serviceUrl: string, user: string, password: string) {
    this.serviceUrl = `${serviceUrl.replace(/\/+$/, '')}/`;
    this.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }

  /** What pyodata's Client does first: `$metadata`, held to the checks its model builder makes. */
  async metadata(): Promise<string> {
    const answer = await this.send('GET', `${this.serviceUrl}$metadata`, {});
    if (answer.status !== 200) throw new PyodataHttpError('Metadata request failed', answer.status, answer.body);
    const contentType = answer.headers['content-type'];
    if (typeof contentType !== 'string') throw new Error('KeyError: content-type');
    if (!contentType.split(';').some((part) => METADATA_TYPES.includes(part))) throw new Error(`Unsupported metadata content type ${contentType}`);
    const root = /^\s*(?:<\?xml[^>]*\?>\s*)?<(\w+):Edmx\b[^>]*\bxmlns:\1="([^"]+)"/.exec(answer.body);
    if (root === null || !EDMX_NAMESPACES.includes(root[2] as string)) throw new Error('Unsupported Edmx namespace');
    const schemas = [...answer.body.matchAll(/<Schema\b[^>]*\bxmlns="([^"]+)"/g)].map((m) => m[1] as string);
    if (schemas.length === 0 || !schemas.every((ns) => EDM_NAMESPACES.includes(ns))) throw new Error(`Unsupported Schema namespace ${schemas.join(', ')}`);
    return answer.body;
  }

  /** get_entities() with options in pyodata's order: custom, $top, $skip, $orderby, $filter, $select, $expand, $inlinecount. */
  async getEntities(path: string, options: { top?: number; filter?: string; select?: string; inlineCount?: boolean } = {}): Promise<{ results: Json[]; totalCount?: number; nextUrl?: string }> {
    const query: [string, string][] = [];
    if (options.top !== undefined) query.push(['$top', String(options.top)]);
    if (options.filter !== undefined) query.push(['$filter', options.filter]);
    if (options.select !== undefined) query.push(['$select', options.select]);
    if (options.inlineCount) query.push(['$inlinecount', 'allpages']);
    return this.entities(this.url(path, query));
  }

  /** What `.next_url(url).execute()` sends: the `__next` it was given, verbatim. */
  async nextPage(nextUrl: string): Promise<{ results: Json[]; totalCount?: number; nextUrl?: string }> {
    if (!/^https?:\/\//.test(nextUrl)) throw new Error(`requests.exceptions.MissingSchema: ${nextUrl}`);
    return this.entities(nextUrl);
  }

  async count(path: string, filter: string): Promise<number> {
    const answer = await this.expect('GET', this.url(`${path}/$count`, [['$filter', filter]]), {}, 200);
    return JSON.parse(answer.body) as number;
  }

  async getEntity(path: string): Promise<Json> {
    const answer = await this.expect('GET', this.url(path), { accept: 'application/json' }, 200);
    const entity = this.d(answer) as Json;
    const etag = (entity.__metadata as Json | undefined)?.etag;
    if (answer.headers.etag !== undefined && etag !== undefined && answer.headers.etag !== etag) throw new Error('Etag from header does not match the Etag from response body');
    return entity;
  }

  /** An entity's property it did not get, as EntityProxy fetches it on attribute access. */
  async property(entityPath: string, name: string): Promise<unknown> {
    const answer = await this.expect('GET', this.url(`${entityPath}/${name}/`), { accept: 'application/json' }, 200);
    return (this.d(answer) as Json)[name];
  }

  async create(path: string, values: Readonly<Record<string, string | number | boolean | null>>): Promise<Json> {
    const headers = { accept: 'application/json', 'content-type': 'application/json', 'x-requested-with': 'X' };
    return this.d(await this.expect('POST', this.url(path), headers, 201, pythonJsonDumps(values))) as Json;
  }

  async update(path: string, values: Readonly<Record<string, string | number | boolean | null>>): Promise<void> {
    await this.expect('PATCH', this.url(path), { accept: 'application/json', 'content-type': 'application/json' }, 204, pythonJsonDumps(values));
  }

  async delete(path: string): Promise<void> {
    await this.expect('DELETE', this.url(path), {}, 204, '');
  }

  /** A function import whose m:HttpMethod is GET, its parameters as URI literals. */
  async callFunction(name: string, literals: readonly [string, string][] = []): Promise<Json> {
    return this.d(await this.expect('GET', this.url(name, literals), { accept: 'application/json' }, 200)) as Json;
  }

  /** With `HttpError.VendorType = BusinessGatewayError`: the message of the error document. */
  static errorMessage(error: PyodataHttpError): string {
    const message = ((JSON.parse(error.body) as Json).error as Json | undefined)?.message as Json | undefined;
    if (typeof message?.value !== 'string') throw new Error(`no error.message.value in ${error.body}`);
    return message.value;
  }

  private url(path: string, query: readonly [string, string][] = []): string {
    const encoded = query.map(([name, value]) => `${quotePlus(name)}=${quotePlus(value)}`).join('&');
    return `${this.serviceUrl}${path}${encoded === '' ? '' : `?${encoded}`}`;
  }

  private async entities(url: string): Promise<{ results: Json[]; totalCount?: number; nextUrl?: string }> {
    const d = this.d(await this.expect('GET', url, { accept: 'application/json' }, 200)) as Json | Json[];
    if (Array.isArray(d)) return { results: d };
    return {
      results: d.results as Json[],
      ...(d.__count === undefined ? {} : { totalCount: Number.parseInt(String(d.__count), 10) }),
      ...(typeof d.__next === 'string' ? { nextUrl: d.__next } : {}),
    };
  }

  private d(answer: WireAnswer): unknown {
    return (JSON.parse(answer.body) as { d: unknown }).d;
  }

  private async expect(method: string, url: string, headers: Record<string, string>, status: number, body?: string): Promise<WireAnswer> {
    const answer = await this.send(method, url, headers, body);
    if (answer.status !== status) throw new PyodataHttpError(`HTTP ${method} ${url} failed with status code ${answer.status}`, answer.status, answer.body);
    return answer;
  }

  private send(method: string, url: string, headers: Record<string, string>, body?: string): Promise<WireAnswer> {
    const payload = body === undefined ? undefined : Buffer.from(body, 'utf8');
    return new Promise((resolve, reject) => {
      const request = httpRequest(url, {
        method,
        headers: {
          ...REQUESTS_HEADERS,
          ...headers,
          authorization: this.authorization,
          ...(payload === undefined ? {} : { 'content-length': String(payload.length) }),
        },
      }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          // requests decodes what it asked for with Accept-Encoding.
          const raw = Buffer.concat(chunks);
          const encoding = response.headers['content-encoding'];
          const bytes = encoding === 'gzip' ? gunzipSync(raw) : encoding === 'deflate' ? inflateSync(raw) : raw;
          const answer = { status: response.statusCode ?? 0, headers: response.headers, body: bytes.toString('utf8') };
          this.answers.push(answer);
          resolve(answer);
        });
      });
      request.on('error', reject);
      request.end(payload);
    });
  }
}

/** What the cycle saw, for the suites to assert on. */
export interface PyodataCycleResult {
  readonly created: { id: number; name: string; active: boolean };
  readonly readBack: { name: string; comment: unknown };
  readonly lazyComment: unknown;
  readonly filtered: { ids: readonly number[]; totalCount: number | undefined; count: number };
  readonly entry: { id: number; projectId: number; durationSeconds: number };
  readonly navigation: { entryIds: readonly number[]; projectIdOfEntry: number };
  readonly paging: { firstPage: number; nextUrl: string; secondPageFirstId: number; lastOfFirstPage: number };
  readonly stopwatch: { startedId: number; startedEndTime: unknown; currentId: number; haltedId: number; haltedEndTime: unknown };
  readonly missing: { status: number; message: string };
  readonly afterDelete: number;
}

const JSON_DATE = (ms: number) => `/Date(${ms})/`;

/**
 * Create, read, update, read a property lazily, filter with an inline count, `$count`, create a
 * time entry, navigate to many and to one, page by `__next`, the three stopwatch operations, an
 * error document, delete: everything as pyodata sends it.
 */
export async function runPyodataCycle(client: PyodataStyleClient, name: string): Promise<PyodataCycleResult> {
  await client.metadata();
  const created = await client.create('Projects', { Name: name, Active: true });
  const key = `Projects(${String(created.ID)})`;
  await client.update(key, { Comment: 'changed by pyodata' });
  const readBack = await client.getEntity(key);
  const lazyComment = await client.property(key, 'Comment');
  const filter = `Name eq '${name}'`;
  const filtered = await client.getEntities('Projects', { top: 10, filter, select: 'ID,Name', inlineCount: true });
  const count = await client.count('Projects', filter);

  const entry = await client.create('TimeEntries', {
    ProjectID: created.ID as number,
    StartTime: JSON_DATE(Date.UTC(2026, 10, 19, 8, 0)),
    EndTime: JSON_DATE(Date.UTC(2026, 10, 19, 9, 30)),
  });
  const entries = await client.getEntities(`${key}/TimeEntries`);
  const projectOfEntry = await client.getEntity(`TimeEntries(${String(entry.ID)})/Project`);

  const firstPage = await client.getEntities('TimeEntries');
  if (firstPage.nextUrl === undefined) throw new Error('the first page of TimeEntries has no __next');
  const secondPage = await client.nextPage(firstPage.nextUrl);

  const started = await client.callFunction('StartStopWatch', [['ProjectID', String(created.ID)], ['Comment', "'pyodata'"], ['Billable', 'false']]);
  const current = await client.callFunction('CurrentStopWatch');
  const halted = await client.callFunction('HaltStopWatch');

  let missing: { status: number; message: string } | undefined;
  try {
    await client.getEntity('Projects(2147483647)');
  } catch (error) {
    if (!(error instanceof PyodataHttpError)) throw error;
    missing = { status: error.status, message: PyodataStyleClient.errorMessage(error) };
  }

  await client.delete(`TimeEntries(${String(entry.ID)})`);
  await client.delete(`TimeEntries(${String(started.ID)})`);
  await client.delete(key);
  let afterDelete = 200;
  try {
    await client.getEntity(key);
  } catch (error) {
    if (!(error instanceof PyodataHttpError)) throw error;
    afterDelete = error.status;
  }

  const ids = (entities: readonly Json[]) => entities.map((e) => e.ID as number);
  return {
    created: { id: created.ID as number, name: created.Name as string, active: created.Active as boolean },
    readBack: { name: readBack.Name as string, comment: readBack.Comment },
    lazyComment,
    filtered: { ids: ids(filtered.results), totalCount: filtered.totalCount, count },
    entry: { id: entry.ID as number, projectId: entry.ProjectID as number, durationSeconds: entry.DurationSeconds as number },
    navigation: { entryIds: ids(entries.results), projectIdOfEntry: projectOfEntry.ID as number },
    paging: {
      firstPage: firstPage.results.length,
      nextUrl: firstPage.nextUrl,
      secondPageFirstId: ids(secondPage.results)[0] as number,
      lastOfFirstPage: ids(firstPage.results).at(-1) as number,
    },
    stopwatch: { startedId: started.ID as number, startedEndTime: started.EndTime, currentId: current.ID as number, haltedId: halted.ID as number, haltedEndTime: halted.EndTime },
    missing: missing ?? { status: 200, message: '' },
    afterDelete,
  };
}
