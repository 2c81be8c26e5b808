// A realistic page of the time-tracking model's TimeEntries, the same every run (seeded), so
// ratios from different runs and machines measure the code, not the data. Values as the
// odata/ codecs hold them (edm.ts): integers, Dates, decimals as canonical strings, strings
// with some non-ASCII and markup characters, nulls where the model allows them, booleans.
import type { EdmRecord } from '../odata/edm.js';

/** mulberry32: tiny, fast, and good enough to vary bench data. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMENTS = [
  'Weekly planning with the team',
  'Réunion client: revue du cahier des charges',
  'Code review & merge of the invoicing branch',
  'Workshop Müller GmbH – Anforderungen klären',
  'Bugfix: rounding of <Decimal> totals',
  'Deploy 2.3.1 to staging',
  'Phone call with Ana Muñoz about the Q3 budget',
  'Støtte til brugerne',
];
const CUSTOM = ['PO-4711', 'Cost centre 3100', 'Überstunden', null, null, null];

export function timeEntries(count: number, seed = 3): EdmRecord[] {
  const next = random(seed);
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const entries: EdmRecord[] = [];
  const day0 = Date.UTC(2026, 0, 5, 8, 0, 0);
  for (let i = 0; i < count; i++) {
    const start = new Date(day0 + i * 3_600_000 * 5 + int(0, 59) * 60_000 + int(0, 999));
    const seconds = int(5, 480) * 60;
    const isRunning = i % 17 === 16; // a running stopwatch has no end yet
    const rate = i % 4 === 3 ? null : `${int(40, 160)}${pick(['', '.5', '.25', '.75'])}`;
    const hours = Math.floor(seconds / 3600);
    entries.push({
      ID: 10_000 + i,
      TypeID: int(1, 3),
      UserID: int(1, 12),
      ProjectID: int(1, 40),
      TaskID: i % 5 === 0 ? null : int(1, 200),
      StartTime: start,
      EndTime: isRunning ? null : new Date(start.getTime() + seconds * 1000),
      DurationSeconds: isRunning ? 0 : seconds,
      DurationString: `${String(hours).padStart(2, '0')}:${String((seconds / 60) % 60).padStart(2, '0')}`,
      Comment: i % 6 === 5 ? null : pick(COMMENTS),
      Billable: next() < 0.7,
      Locked: i < 30,
      IsEditable: i >= 30,
      RevenuePerHour: rate,
      RevenueTotal: rate === null ? null : ((Number(rate) * seconds) / 3600).toFixed(2).replace(/\.?0+$/, ''),
      Custom1: pick(CUSTOM),
      Custom2: pick(CUSTOM),
      Custom3: null,
      Custom4: null,
      Custom5: null,
      LastChangeTime: new Date(start.getTime() + 86_400_000),
      LastChangeAuthor: int(1, 12),
    });
  }
  return entries;
}
