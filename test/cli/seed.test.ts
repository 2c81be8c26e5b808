// `timegate seed`: a realistic data set of the size asked for, into a new account whose key works.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';
import { timegate } from '../helpers/cli.js';

describe.each(testDatabases)('timegate seed on $name', (kind) => {
  let place: TestDatabasePlace;

  beforeAll(async () => {
    place = await kind.create();
  });

  afterAll(async () => {
    await place?.dispose();
  });

  it('books the entries asked for, reports progress on stderr and one JSON line on stdout', async () => {
    const run = await timegate(['seed', '--entries', '3000', '--db', place.url]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/\[#{30}\] 3,000 \/ 3,000/);
    const result = JSON.parse(run.stdout.trim()) as { accountId: number; inserted: number; apiKey: string; firstStartTime: string; lastStartTime: string };
    expect(result).toMatchObject({ inserted: 3000, apiKey: expect.stringMatching(/^tg_/) });
    expect(Date.parse(result.firstStartTime)).toBeLessThan(Date.parse(result.lastStartTime));
    const database = await place.open();
    const { n } = await database.db.selectFrom('time_entries').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', result.accountId).executeTakeFirstOrThrow();
    expect(Number(n)).toBe(3000);
  }, 60_000);
});
