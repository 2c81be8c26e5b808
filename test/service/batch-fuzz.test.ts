// Hostile batches (fast-check, fixed seed): 5,000 well-formed batches mangled byte by byte, sent
// to the service one after another on one connection (500 more on PostgreSQL, whose
// transactions are the other implementation of a changeset). Whatever arrives: never a 5xx, neither for
// the batch nor for a part of it; never part of a changeset stored (the rows the batch added are
// exactly its 201 answers, as each changeset that failed answers one error and adds nothing);
// never a hang (each answer within 10 s); and the service still serves a plain read afterwards.
import fc from 'fast-check';
import { sql } from 'kysely';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUZZ_CONTENT_TYPE, fuzzSeeds, hostileBatch } from '../helpers/batch-mutations.js';
import { testDatabases } from '../helpers/databases.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const RUNS = { sqlite: 5000, postgres: 500 } as const;
const SEED = 20261128;

describe.each(testDatabases)('hostile batches on $name', (kind) => {
  let service: TestService;
  let pool: Pool;
  let seeds: string[];

  beforeAll(async () => {
    service = await startTestService(kind);
    pool = new Pool(service.origin, { connections: 1, headersTimeout: 10_000, bodyTimeout: 10_000 });
    const project = await service.database.db.selectFrom('projects').select('id').where('name', '=', 'Website-Relaunch').executeTakeFirstOrThrow();
    seeds = fuzzSeeds(project.id);
  });

  afterAll(async () => {
    await pool?.close();
    await service?.close();
  });

  const rows = async () => {
    const { rows: [count] } = await sql<{ n: number | string }>`select (select count(*) from time_entries) + (select count(*) from projects)
      + (select count(*) from clients) + (select count(*) from tasks) as n`.execute(service.database.db);
    return Number(count?.n);
  };

  async function send(body: Buffer): Promise<{ status: number; text: string }> {
    const response = await pool.request({
      method: 'POST', path: '/V1/Api.svc/$batch', body,
      headers: { 'content-type': FUZZ_CONTENT_TYPE, 'x-serviceapikey': service.admin.apiKey, accept: 'application/json' },
    });
    return { status: response.statusCode, text: await response.body.text() };
  }

  it('answers the unmangled seeds with every part a success', async () => {
    for (const seed of seeds) {
      const before = await rows();
      const { status, text } = await send(Buffer.from(seed));
      expect(status).toBe(202);
      const statuses = [...text.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((m) => Number(m[1]));
      expect(statuses.every((s) => s < 300), text).toBe(true);
      expect(await rows() - before).toBe(statuses.filter((s) => s === 201).length);
    }
  });

  it(`answers ${RUNS[kind.name]} mangled batches without a 5xx, a partly stored changeset or a hang`, async () => {
    let answered = 0;
    let stored = await rows();
    await fc.assert(fc.asyncProperty(hostileBatch(seeds), async (body) => {
      const { status, text } = await send(body);
      const before = stored;
      stored = await rows();
      const added = stored - before;
      answered++;
      expect(status, text.slice(0, 300)).toBeLessThan(500);
      if (status !== 202) {
        expect(JSON.parse(text), text.slice(0, 300)).toHaveProperty('error.message.value');
        expect(added).toBe(0);
        return;
      }
      expect(text, 'a part answered with a 5xx').not.toMatch(/^HTTP\/1\.1 5\d\d /m);
      expect(added, 'rows added beyond the 201 answers').toBe([...text.matchAll(/^HTTP\/1\.1 201 /gm)].length);
    }), { numRuns: RUNS[kind.name], seed: SEED, endOnFailure: true });
    expect(answered).toBe(RUNS[kind.name]);
    const after = await fetch(`${service.root}/Projects?$top=1&$format=json`, { headers: { 'x-serviceapikey': service.admin.apiKey } });
    expect(after.status).toBe(200);
    // About 15 s on a quiet machine (3.3 ms of CPU a batch); the margin is for a machine shared
    // with other work, where five times as long was seen.
  }, 600_000);
});
