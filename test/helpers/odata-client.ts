// A small OData V2 client for the HTTP-level suites of the service: requests with an API key in
// any of the forms of service-api.md §5, payloads in Atom or JSON written out plainly (so a test
// shows what goes over the wire), and responses read back with the odata/ readers into the typed
// values of odata/edm.ts, whichever format the service answered in.
import { request as httpRequest } from 'node:http';
import { model } from '../../generated/model.js';
import type { AtomEntry, AtomFeed } from '../../odata/atom-reader.js';
import { readAtomEntry, readAtomFeed } from '../../odata/atom-reader.js';
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import { readJsonError, readJsonLinks, readJsonProperty } from '../../odata/json-documents.js';
import type { ReadEntry } from '../../odata/json-reader.js';
import { readJsonEntry, readJsonFeed } from '../../odata/json-reader.js';
import { indexModel } from '../../odata/model-index.js';
import type { EntitySet, Property } from '../../odata/model.js';
import { NS_ATOM, NS_DATA, NS_METADATA } from '../../odata/namespaces.js';
import { readXmlError, readXmlLinks, readXmlProperty } from '../../odata/xml-documents.js';

export type Format = 'atom' | 'json';
export const FORMATS: readonly Format[] = ['atom', 'json'];

/** The `Accept` header that asks for each format. */
export const ACCEPT: Readonly<Record<Format, string>> = { atom: 'application/atom+xml', json: 'application/json' };
/** The Content-Type of each format's successful responses (service-api.md §4.1). */
export const CONTENT_TYPE: Readonly<Record<Format, string>> = {
  atom: 'application/atom+xml;charset=utf-8',
  json: 'application/json;charset=utf-8',
};
/** The Content-Type of each format's error documents (service-api.md §7: XML is application/xml). */
export const ERROR_CONTENT_TYPE: Readonly<Record<Format, string>> = {
  atom: 'application/xml;charset=utf-8',
  json: 'application/json;charset=utf-8',
};

export const index = indexModel(model);

export function setNamed(name: string): EntitySet {
  const set = index.entitySet(name);
  if (set === undefined) throw new Error(`the model has no entity set ${name}`);
  return set;
}

/** How a request carries its key (service-api.md §5, plus Bearer). */
export type KeyForm = 'header' | 'basic' | 'bearer' | 'query';

export interface RequestOptions {
  readonly method?: string;
  /** The API key; null sends none; default: the client's key. */
  readonly key?: string | null;
  readonly keyForm?: KeyForm;
  /** Asks for a format by `Accept`. */
  readonly format?: Format;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string or bytes; bytes go without any Content-Type unless one is given. */
  readonly body?: string | Uint8Array;
  readonly contentType?: string;
}

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  /** '' when the response has none. */
  readonly contentType: string;
  readonly text: string;
  /** The URL requested (for messages). */
  readonly url: string;
}

export interface Payload {
  readonly body: string;
  readonly contentType: string;
}

export class ODataClient {
  constructor(readonly root: string, readonly key: string | null, readonly keyForm: KeyForm = 'header') {}

  /** The same client acting with another key (or none). */
  as(key: string | null, keyForm: KeyForm = this.keyForm): ODataClient {
    return new ODataClient(this.root, key, keyForm);
  }

  /** `path` below the root (`/Projects(1)`), or an absolute URL (a next link). */
  url(path: string): string {
    return /^https?:\/\//.test(path) ? path : `${this.root}${path}`;
  }

  async request(path: string, options: RequestOptions = {}): Promise<Reply> {
    const key = options.key === undefined ? this.key : options.key;
    const form = options.keyForm ?? this.keyForm;
    let url = this.url(path);
    const headers: Record<string, string> = {};
    if (options.format !== undefined) headers.accept = ACCEPT[options.format];
    if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    if (key !== null) {
      if (form === 'header') headers['x-serviceapikey'] = key;
      else if (form === 'basic') headers.authorization = `Basic ${Buffer.from(`any-user:${key}`).toString('base64')}`;
      else if (form === 'bearer') headers.authorization = `Bearer ${key}`;
      else url += `${url.includes('?') ? '&' : '?'}ApiKey=${encodeURIComponent(key)}`;
    }
    Object.assign(headers, options.headers);
    const response = await fetch(url, { method: options.method ?? 'GET', headers, body: bodyInit(options.body) });
    return {
      status: response.status,
      headers: response.headers,
      contentType: response.headers.get('content-type') ?? '',
      text: await response.text(),
      url,
    };
  }

  get(path: string, options: Omit<RequestOptions, 'method' | 'body'> = {}): Promise<Reply> {
    return this.request(path, options);
  }

  /** A write with a payload of `payload()`. */
  send(method: string, path: string, payload: Payload, options: Omit<RequestOptions, 'method' | 'body' | 'contentType'> = {}): Promise<Reply> {
    return this.request(path, { ...options, method, body: payload.body, contentType: payload.contentType });
  }

  delete(path: string, options: Omit<RequestOptions, 'method'> = {}): Promise<Reply> {
    return this.request(path, { ...options, method: 'DELETE' });
  }

  /** Every entity of a collection URL, following next links; also the size of each page. */
  async readAll(path: string, setName: string, options: Omit<RequestOptions, 'method' | 'body'> = {}): Promise<{ records: EdmRecord[]; pageSizes: number[]; links: string[] }> {
    const records: EdmRecord[] = [];
    const pageSizes: number[] = [];
    const links: string[] = [];
    let next: string | undefined = path;
    while (next !== undefined) {
      if (pageSizes.length > 100) throw new Error(`more than 100 pages following ${path}`);
      const reply = await this.get(next, options);
      expectStatus(reply, 200);
      const feed = readFeed(reply, setName);
      records.push(...feed.records);
      pageSizes.push(feed.records.length);
      next = feed.next;
      if (next !== undefined) links.push(next);
    }
    return { records, pageSizes, links };
  }
}

// DOM's BodyInit takes only views over a plain ArrayBuffer; a Uint8Array may view any buffer
// (a SharedArrayBuffer in the type system), so bytes are copied into one fetch accepts.
function bodyInit(body: string | Uint8Array | undefined): string | Uint8Array<ArrayBuffer> | undefined {
  return body === undefined || typeof body === 'string' ? body : new Uint8Array(body);
}

/** Throws with the response body when the status is not the one expected (clearer than toBe). */
export function expectStatus(reply: Reply, status: number): void {
  if (reply.status !== status) {
    throw new Error(`expected ${status} from ${reply.url}, got ${reply.status} ${reply.contentType}: ${reply.text.slice(0, 600)}`);
  }
}

function formatOf(reply: Reply): Format {
  if (reply.contentType.startsWith('application/json')) return 'json';
  if (reply.contentType.startsWith('application/atom+xml')) return 'atom';
  throw new Error(`${reply.url} answered ${reply.status} with ${reply.contentType || 'no content type'}, neither Atom nor JSON: ${reply.text.slice(0, 300)}`);
}

/** The one entity of an entry document, typed. */
export function readEntry(reply: Reply, setName: string): EdmRecord {
  return formatOf(reply) === 'json'
    ? readJsonEntry(reply.text, index, setNamed(setName)).record
    : readAtomEntry(reply.text, index, setNamed(setName)).properties;
}

/** An entity with what `$expand` put inline (deferred navigation properties are absent). */
export interface Entity {
  readonly values: EdmRecord;
  readonly expanded: Readonly<Record<string, Entity | null | readonly Entity[]>>;
}

export interface Feed {
  readonly records: EdmRecord[];
  readonly entities: Entity[];
  readonly next?: string;
  readonly count?: number;
}

function fromJson(entry: ReadEntry): Entity {
  const expanded: Record<string, Entity | null | Entity[]> = {};
  for (const [name, inline] of Object.entries(entry.expanded)) {
    expanded[name] = inline === null ? null : Array.isArray(inline) ? inline.map(fromJson) : fromJson(inline as ReadEntry);
  }
  return { values: entry.record, expanded };
}

function fromAtom(entry: AtomEntry): Entity {
  const expanded: Record<string, Entity | null | Entity[]> = {};
  for (const [name, link] of Object.entries(entry.navigation)) {
    if (link.inline === undefined) continue;
    expanded[name] = link.inline === null ? null : 'entries' in link.inline ? (link.inline as AtomFeed).entries.map(fromAtom) : fromAtom(link.inline as AtomEntry);
  }
  return { values: entry.properties, expanded };
}

/** The entry document's entity with its inline expansions. */
export function readEntity(reply: Reply, setName: string): Entity {
  return formatOf(reply) === 'json'
    ? fromJson(readJsonEntry(reply.text, index, setNamed(setName)))
    : fromAtom(readAtomEntry(reply.text, index, setNamed(setName)));
}

/** The entities of a feed document, typed, with its next link and inline count. */
export function readFeed(reply: Reply, setName: string): Feed {
  if (formatOf(reply) === 'json') {
    const feed = readJsonFeed(reply.text, index, setNamed(setName));
    const entities = feed.entries.map(fromJson);
    return { records: entities.map((e) => e.values), entities, next: feed.next, count: feed.count };
  }
  const feed = readAtomFeed(reply.text, index, setNamed(setName));
  const entities = feed.entries.map(fromAtom);
  return { records: entities.map((e) => e.values), entities, next: feed.next, count: feed.count };
}

/** The value of a single-property document (`/Projects(1)/Name`), XML or JSON. */
export function readProperty(reply: Reply, setName: string, propertyName: string): EdmValue | EdmRecord {
  const property = index.property(index.typeOfSet(setNamed(setName)), propertyName);
  if (property === undefined) throw new Error(`${setName} has no property ${propertyName}`);
  if (reply.contentType.startsWith('application/json')) return readJsonProperty(index, property, reply.text);
  if (reply.contentType.startsWith('application/xml')) return readXmlProperty(reply.text, index, property);
  throw new Error(`${reply.url} answered ${reply.status} with ${reply.contentType}, not a property document: ${reply.text.slice(0, 300)}`);
}

/** The URIs of a `$links` document, XML or JSON. */
export function readLinks(reply: Reply): string[] {
  if (reply.contentType.startsWith('application/json')) return readJsonLinks(reply.text);
  if (reply.contentType.startsWith('application/xml')) return readXmlLinks(reply.text).uris;
  throw new Error(`${reply.url} answered ${reply.status} with ${reply.contentType}, not a links document: ${reply.text.slice(0, 300)}`);
}

/** The complex or primitive result of a service operation (`/GetChangesDigest`), XML or JSON. */
export function readFunctionResult(reply: Reply, functionName: string): EdmValue | EdmRecord {
  const fn = model.functionImports.find((f) => f.name === functionName);
  if (fn?.returnType === undefined) throw new Error(`the model has no function import ${functionName} with a return type`);
  // A function's result document is shaped like a property named after the function.
  const shape: Property = {
    name: fn.name, restName: fn.name, type: fn.returnType, nullable: false,
    capabilities: { creatable: false, updatable: false, filterable: false, sortable: false }, annotations: {},
  };
  if (reply.contentType.startsWith('application/json')) return readJsonProperty(index, shape, reply.text);
  if (reply.contentType.startsWith('application/xml')) return readXmlProperty(reply.text, index, shape);
  throw new Error(`${reply.url} answered ${reply.status} with ${reply.contentType}, not a function result: ${reply.text.slice(0, 300)}`);
}

/** A page of a to-many `$links` document: its URIs, `$inlinecount` and the next page's link. */
export interface LinksPage {
  readonly uris: string[];
  readonly count?: number;
  readonly next?: string;
}

export function readLinksPage(reply: Reply): LinksPage {
  if (reply.contentType.startsWith('application/xml')) return readXmlLinks(reply.text);
  if (!reply.contentType.startsWith('application/json')) throw new Error(`${reply.url} answered ${reply.status} with ${reply.contentType}, not a links document`);
  // The odata/ reader gives the URIs; `__count` and `__next` sit beside `results`.
  const d = (JSON.parse(reply.text) as { d?: { __count?: string; __next?: string } }).d ?? {};
  return {
    uris: readJsonLinks(reply.text),
    ...(d.__count === undefined ? {} : { count: Number(d.__count) }),
    ...(d.__next === undefined ? {} : { next: d.__next }),
  };
}

export interface ErrorBody {
  readonly code: string | null;
  readonly message: string;
  readonly lang: string;
}

/** The error document of a 4xx/5xx, XML (`m:error`) or JSON (`{"error":...}`). */
export function readError(reply: Reply): ErrorBody {
  if (reply.contentType.startsWith('application/json')) return readJsonError(reply.text);
  if (reply.contentType.startsWith('application/xml')) return readXmlError(reply.text);
  throw new Error(`${reply.url} answered ${reply.status} with ${reply.contentType || 'no content type'}, not an error document: ${reply.text.slice(0, 300)}`);
}

/** Primitive values a test writes into a payload. */
export type PayloadValue = string | number | boolean | null | Date;

function jsonValue(value: PayloadValue): unknown {
  return value instanceof Date ? `/Date(${value.getTime()})/` : value;
}

function atomValue(name: string, value: PayloadValue): string {
  if (value === null) return `<d:${name} m:null="true"/>`;
  const text = value instanceof Date ? value.toISOString().replace('Z', '') : String(value);
  return `<d:${name}>${text.replaceAll('&', '&amp;').replaceAll('<', '&lt;')}</d:${name}>`;
}

/** An Atom create/update payload with only the mandatory elements (service-api.md §4.2 rule 2). */
export function atomEntry(properties: Readonly<Record<string, PayloadValue>>): string {
  const elements = Object.entries(properties).map(([name, value]) => atomValue(name, value)).join('');
  return `<?xml version="1.0" encoding="utf-8"?><entry xmlns="${NS_ATOM}" xmlns:d="${NS_DATA}" xmlns:m="${NS_METADATA}">`
    + `<content type="application/xml"><m:properties>${elements}</m:properties></content></entry>`;
}

/** The entity as a payload of `format` (JSON: dates as `\/Date(ms)\/`; Atom: ISO 8601). */
export function payload(format: Format, properties: Readonly<Record<string, PayloadValue>>): Payload {
  if (format === 'atom') return { body: atomEntry(properties), contentType: 'application/atom+xml' };
  const json = Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, jsonValue(value)]));
  return { body: JSON.stringify(json), contentType: 'application/json' };
}

/** A raw payload with the content type given (malformed bodies, wrong types). */
export function rawPayload(body: string, contentType: string): Payload {
  return { body, contentType };
}

/** The number in `.../Projects(7)` (a Location header, a `__metadata.uri`). */
export function idOf(uri: string | null): number {
  const match = /\((\d+)\)$/.exec(uri ?? '');
  if (match === null) throw new Error(`${String(uri)} does not end in an entity key`);
  return Number(match[1]);
}

/** A value as the test compares it: dates by instant. */
export function plain(value: EdmValue | EdmRecord | undefined): unknown {
  return value instanceof Date ? value.getTime() : value;
}

export interface RawReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

/** A GET with headers fetch() does not let a caller set (Host). */
export function rawGet(origin: string, path: string, headers: Readonly<Record<string, string>>): Promise<RawReply> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: hostname, port: Number(port), path, method: 'GET', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}
