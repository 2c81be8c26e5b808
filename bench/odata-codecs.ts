// Micro-benchmark of the odata/ codecs on one realistic page (100 TimeEntries): write it as
// JSON and Atom, read both back, parse typical $filters; each beside a baseline measured in
// the same run (issue 3). Targets are ratios, so they hold on any machine or not at all.
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { model } from '../generated/model.js';
import { readAtomFeed } from '../odata/atom-reader.js';
import { createAtomWriter } from '../odata/atom-writer.js';
import type { FilterContext } from '../odata/filter-checker.js';
import { parseFilter } from '../odata/filter-checker.js';
import { createJsonReader } from '../odata/json-reader.js';
import { createJsonWriter } from '../odata/json-writer.js';
import { indexModel } from '../odata/model-index.js';
import { atomFeedTree, BUILDER_OPTIONS } from './atom-tree.js';
import type { Task } from './report.js';
import { compare, formatRate, formatRatio, formatTarget, markdownTable, measureRounds } from './report.js';
import type { BenchSuite } from './suite.js';
import { timeEntries } from './time-entries.js';

const ENTRIES = 100;
const ROUNDS = 5;
const ROOT = 'https://timegate.example/V1/Api.svc/';
const TYPICAL_FILTER = "ProjectID eq 5 and StartTime gt datetime'2026-01-01T00:00:00' and substringof('x',Comment)";
const FUNCTION_FILTER =
  "(UserID eq 3 or UserID eq 7) and year(StartTime) eq 2026 and tolower(Comment) ne 'pause' and not Locked";

/** One line of the table: our task against a baseline task, and what the issue asks. */
interface Row {
  readonly operation: string;
  readonly ours: string;
  readonly baseline: string;
  readonly target?: number;
}

/**
 * Our writers build V8 ropes (string concatenation is cheap until the string is read); whoever
 * sends the text then pays for flattening it. JSON.stringify and XMLBuilder return flat text.
 * Reading one character flattens a rope, so every writer task, ours and baseline alike, ends
 * with this: each pays for text a socket could take.
 */
function materialized(text: string): number {
  return text.charCodeAt(text.length >> 1);
}

/** A flat copy, as a body read from a socket is: readers must not get a rope for free. */
function received(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

function fail(message: string): never {
  throw new Error(`odata bench setup: ${message}`);
}

async function run(): Promise<void> {
  const index = indexModel(model);
  const set = index.entitySet('TimeEntries') ?? fail('no entity set TimeEntries');
  const records = timeEntries(ENTRIES);
  const feedOptions = { serviceRoot: ROOT, next: `${ROOT}TimeEntries?$skiptoken=${10_000 + ENTRIES - 1}` };
  const filterContext: FilterContext = { type: index.typeOfSet(set), index };

  const jsonWriter = createJsonWriter(index, set);
  const atomWriter = createAtomWriter(index, set);
  const jsonReader = createJsonReader(index, set);
  const jsonFeed = received(jsonWriter.feed(records, feedOptions));
  const atomFeed = received(atomWriter.feed(records, feedOptions));
  const bareJson = received(JSON.stringify(records));
  // JSON.stringify pays Date#toJSON per date; this copy shows what it costs without that.
  const textRecords = records.map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])),
  );
  const builder = new XMLBuilder(BUILDER_OPTIONS);
  const tree = atomFeedTree(index, set, records, ROOT);
  // Same information as our element tree (attributes kept), no value conversion of any kind.
  const parser = new XMLParser({ ignoreAttributes: false, parseTagValue: false, parseAttributeValue: false });
  const filterTrees = new Map(
    [TYPICAL_FILTER, FUNCTION_FILTER].map((text) => [text, JSON.stringify(parseFilter(text, filterContext))]),
  );

  // A bench of a broken path measures nothing: check once that every reader gets the page back.
  if (jsonReader.feed(jsonFeed).entries.length !== ENTRIES) fail('JSON feed did not read back');
  if (readAtomFeed(atomFeed, index, set).entries.length !== ENTRIES) fail('Atom feed did not read back');
  if (!builder.build(tree).includes('<m:properties>')) fail('XMLBuilder baseline lost the properties');

  const tasks = new Map<string, Task>([
    ['json write', () => materialized(jsonWriter.feed(records, feedOptions))],
    ['JSON.stringify', () => materialized(JSON.stringify(records))],
    ['JSON.stringify (dates as text)', () => materialized(JSON.stringify(textRecords))],
    ['atom write', () => materialized(atomWriter.feed(records, feedOptions))],
    ['XMLBuilder.build', () => materialized(builder.build(tree) as string)],
    ['json read', () => jsonReader.feed(jsonFeed)],
    ['JSON.parse', () => JSON.parse(bareJson) as unknown],
    ['JSON.parse (our feed text)', () => JSON.parse(jsonFeed) as unknown],
    ['atom read', () => readAtomFeed(atomFeed, index, set)],
    ['XMLParser.parse', () => parser.parse(atomFeed) as unknown],
  ]);
  for (const [text, treeJson] of filterTrees) {
    tasks.set(`filter ${text}`, () => parseFilter(text, filterContext));
    tasks.set(`JSON.parse ${text}`, () => JSON.parse(treeJson) as unknown);
  }
  const rates = await measureRounds(tasks, { rounds: ROUNDS, timeMs: 300 });

  const comparisons: Row[] = [
    { operation: 'write feed, JSON', ours: 'json write', baseline: 'JSON.stringify', target: 0.8 },
    { operation: 'write feed, JSON', ours: 'json write', baseline: 'JSON.stringify (dates as text)' },
    { operation: 'write feed, Atom', ours: 'atom write', baseline: 'json write', target: 0.5 },
    { operation: 'write feed, Atom', ours: 'atom write', baseline: 'XMLBuilder.build' },
    { operation: 'read feed, JSON', ours: 'json read', baseline: 'JSON.parse' },
    { operation: 'read feed, JSON', ours: 'json read', baseline: 'JSON.parse (our feed text)' },
    { operation: 'read feed, Atom', ours: 'atom read', baseline: 'XMLParser.parse', target: 0.7 },
    ...[...filterTrees.keys()].map((text) => ({
      operation: `$filter \`${text}\``,
      ours: `filter ${text}`,
      baseline: `JSON.parse ${text}`,
    })),
  ];
  const baselineNames: Record<string, string> = {
    'JSON.stringify': '`JSON.stringify` of the bare entries',
    'JSON.stringify (dates as text)': '`JSON.stringify`, dates already ISO text',
    'json write': 'our JSON writer',
    'XMLBuilder.build': 'fast-xml-parser `XMLBuilder` (same document)',
    'JSON.parse': '`JSON.parse` of the bare entries’ text',
    'JSON.parse (our feed text)': '`JSON.parse` of our feed text',
    'XMLParser.parse': 'fast-xml-parser `XMLParser` (same text)',
  };
  const rows = comparisons.map((row) => {
    const c = compare(rates.get(row.ours) ?? [], rates.get(row.baseline) ?? []);
    return [
      row.operation,
      formatRate(c.ours),
      baselineNames[row.baseline] ?? '`JSON.parse` of the typed tree as JSON',
      formatRate(c.baseline),
      formatRatio(c.ratio),
      `${formatRatio(c.low)}–${formatRatio(c.high)}`,
      formatTarget(c.ratio, row.target),
    ];
  });
  console.log(
    `${ENTRIES}-entry TimeEntries feed: JSON ${jsonFeed.length} characters (bare entries ${bareJson.length}), ` +
      `Atom ${atomFeed.length}. Medians of ${ROUNDS} rounds; ratio = ours / baseline, per round.\n`,
  );
  console.log(
    markdownTable(
      ['operation', 'ours (ops/s)', 'baseline', 'baseline (ops/s)', 'ratio', 'rounds', 'target'],
      rows,
    ),
  );
}

export const odataCodecs: BenchSuite = {
  name: 'odata',
  description: 'odata/ codecs (micro): 100-entry feed written and read as JSON and Atom, $filter parsing',
  run,
};
