// What the REST-face suites share: requests to the gateway with a key, the service's own answer
// to the same question (read over OData JSON, directly), and the REST shape the contract promises
// for an OData entity, derived here independently from the model (camelCase names, RFC 3339
// dates compared as instants, Decimal and Int64 as strings).
import { expect } from 'vitest';
import { model } from '../../generated/model.js';
import { indexModel } from '../../odata/model-index.js';
import type { TestGateway } from '../helpers/gateway.js';

const index = indexModel(model);
export type Json = Record<string, unknown>;

export function restClient(t: TestGateway) {
  const request = (method: string, path: string, key: string | undefined, init: { body?: unknown; contentType?: string; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...(key === undefined ? {} : { 'x-serviceapikey': key }), ...init.headers };
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['content-type'] = init.contentType ?? 'application/json';
    }
    const url = path.startsWith('/api/') ? `${t.origin}${path}` : `${t.restRoot}${path}`;
    return fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  };
  return {
    get: (path: string, key: string | undefined, headers: Record<string, string> = {}) => request('GET', path, key, { headers }),
    post: (path: string, key: string | undefined, body?: unknown, contentType?: string) =>
      request('POST', path, key, { ...(body === undefined ? {} : { body }), ...(contentType === undefined ? {} : { contentType }) }),
    patch: (path: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}, contentType = 'application/merge-patch+json') =>
      request('PATCH', path, key, { body, contentType, headers }),
    delete: (path: string, key: string | undefined, headers: Record<string, string> = {}) => request('DELETE', path, key, { headers }),
    request,
  };
}

/** The service's answer over OData JSON: an entity, or every entity of a feed (all pages). */
export async function odata(t: TestGateway, path: string, key: string): Promise<Json | Json[]> {
  let url: string | undefined = `${t.service.root}/${path}${path.includes('?') ? '&' : '?'}$format=json`;
  const all: Json[] = [];
  while (url !== undefined) {
    const response: Response = await fetch(url, { headers: { 'x-serviceapikey': key, accept: 'application/json' } });
    expect(response.status, `${url}`).toBe(200);
    const d = ((await response.json()) as { d: Json }).d;
    if (!Array.isArray(d.results)) return d;
    all.push(...(d.results as Json[]));
    url = typeof d.__next === 'string' ? d.__next : undefined;
  }
  return all;
}

export async function odataList(t: TestGateway, path: string, key: string): Promise<Json[]> {
  return (await odata(t, path, key)) as Json[];
}

const JSON_DATE = /^\/Date\((-?\d+)([+-]\d{4})?\)\/$/;

function comparable(type: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'Edm.DateTime' && typeof value === 'string') {
    const ms = JSON_DATE.exec(value)?.[1];
    return ms === undefined ? Date.parse(value) : Number(ms);
  }
  if (type === 'Edm.Decimal') return Number(value);
  return value;
}

/** Values a running stopwatch computes from the clock: they differ between two reads. */
const CLOCK_DEPENDENT = ['durationSeconds', 'durationString', 'revenueTotal'];

function withoutClock(out: Json): Json {
  if (!('endTime' in out) || out.endTime !== null) return out;
  for (const name of CLOCK_DEPENDENT) delete out[name];
  return out;
}

/** An OData entity of `setName` as the values of its REST object, for toEqual. */
export function expectedRest(setName: string, entity: Json): Json {
  const set = index.entitySet(setName);
  if (set === undefined) throw new Error(`no set ${setName}`);
  const out: Json = {};
  for (const p of index.typeOfSet(set).properties) if (p.name in entity) out[p.restName] = comparable(p.type, entity[p.name]);
  return withoutClock(out);
}

/** A REST object of `setName` reduced the same way. */
export function comparableRest(setName: string, rest: Json): Json {
  const set = index.entitySet(setName);
  if (set === undefined) throw new Error(`no set ${setName}`);
  const out: Json = {};
  for (const p of index.typeOfSet(set).properties) if (p.restName in rest) out[p.restName] = comparable(p.type, rest[p.restName]);
  return withoutClock(out);
}

/** Every item of a REST list, following `next` to the end; also the pages seen. */
export async function restListAll(t: TestGateway, path: string, key: string): Promise<{ items: Json[]; pages: number }> {
  const items: Json[] = [];
  let pages = 0;
  let next: string | null = path;
  while (next !== null) {
    const url: string = next.startsWith('/api/') ? `${t.origin}${next}` : `${t.restRoot}${next}`;
    const response: Response = await fetch(url, { headers: { 'x-serviceapikey': key } });
    expect(response.status, url).toBe(200);
    const page = (await response.json()) as { items: Json[]; next: string | null };
    items.push(...page.items);
    pages++;
    next = page.next;
  }
  return { items, pages };
}
