// The addresses `timegate start` prints and a person opens first: the gateway's `/` leads to the
// docs page (or, with the page off, names the contract), and the REST face's root lists what can
// be called there, without a key; every address it lists answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlite } from '../helpers/databases.js';
import { startTestGateway } from '../helpers/gateway.js';
import type { TestGateway } from '../helpers/gateway.js';

describe('the gateway\'s entry points', () => {
  let t: TestGateway;
  let noDocs: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway(sqlite);
    noDocs = await startTestGateway(sqlite, { config: { docs: false, auth: { allowedKeys: ['tg_only-this-key'] } } });
  });

  afterAll(async () => {
    await t?.close();
    await noDocs?.close();
  });

  it('sends a browser opening / to the docs page, which renders', async () => {
    const landing = await fetch(`${t.origin}/`, { redirect: 'manual' });
    expect(landing.status).toBe(302);
    expect(landing.headers.get('location')).toBe('/docs');
    const page = await fetch(`${t.origin}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('names the contract at / when the docs page is off, even where keys are restricted', async () => {
    const landing = await fetch(`${noDocs.origin}/`);
    expect(landing.status).toBe(200);
    expect(await landing.json()).toEqual({ openapi: '/openapi.json' });
  });

  it('lists every collection and operation at the REST root, each of which answers with a key', async () => {
    for (const root of [t.restRoot, `${t.restRoot}/`]) {
      const index = await fetch(root);
      expect(index.status).toBe(200);
      const links = (await index.json()) as { openapi: string; docs: string; resources: string[]; operations: string[] };
      expect(links.openapi).toBe('/openapi.json');
      expect(links.docs).toBe('/docs');
      expect(links.resources).toContain('/api/v1/time-entries');
      expect(links.resources).toContain('/api/v1/projects');
      for (const resource of links.resources) {
        const answer = await fetch(`${t.origin}${resource}?limit=1`, { headers: { 'x-serviceapikey': t.service.jana.apiKey } });
        expect([resource, answer.status]).toEqual([resource, 200]);
      }
    }
  });

  it('keeps the REST root behind the key list like the rest of the face', async () => {
    const refused = await fetch(noDocs.restRoot);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
