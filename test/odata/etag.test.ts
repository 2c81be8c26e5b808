// ETags of entities (odata/etag.ts): written as SAP Gateway writes them, from the properties the
// model marks ConcurrencyMode="Fixed", and If-Match / If-None-Match read as clients send them.
import { describe, expect, it } from 'vitest';
import { conditionMatches, etagWriter, parseEntityTagCondition } from '../../odata/etag.js';
import { setOf, timeTracking } from './fixtures/json/models.js';

describe('ETags', () => {
  it('are weak tags of the URI literals of the concurrency properties; a type without them has none', () => {
    const entries = etagWriter(timeTracking.typeOfSet(setOf(timeTracking, 'TimeEntries')));
    expect(entries?.({ ID: 4, Version: 12 })).toBe('W/"12"');
    expect(etagWriter(timeTracking.typeOfSet(setOf(timeTracking, 'Users')))).toBeUndefined();
  });

  it('match If-Match lists weakly, * matches anything, and a malformed header matches nothing', () => {
    const cases: ReadonlyArray<readonly [string, boolean]> = [
      ['W/"12"', true], ['"12"', true], ['W/"11", W/"12"', true], ['*', true], [' * ', true],
      ['W/"11"', false], ['12', false], ['W/"12', false], ['"12"junk', false], ['', false], ['W/"1", W/"12"x', false],
    ];
    for (const [header, matches] of cases) expect(conditionMatches(parseEntityTagCondition(header), 'W/"12"'), header).toBe(matches);
  });
});
