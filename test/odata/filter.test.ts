import { describe, expect, it } from 'vitest';
import { parseFilter } from '../../odata/filter-checker.js';
import { printFilter } from '../../odata/filter-printer.js';
import { ExpressionError, LimitError, LiteralError } from '../../odata/errors.js';
import type { FilterContext } from '../../odata/filter-checker.js';
import { entityType, northwind, timetracking } from './filter-fixtures.js';

const timeEntries: FilterContext = { type: entityType(timetracking, 'Service.TimeEntry'), index: timetracking };
const projects: FilterContext = { type: entityType(timetracking, 'Service.Project'), index: timetracking };
const products: FilterContext = { type: entityType(northwind, 'NorthwindModel.Product'), index: northwind };
const shipments: FilterContext = { type: entityType(northwind, 'NorthwindModel.Shipment'), index: northwind };
const orders: FilterContext = { type: entityType(northwind, 'NorthwindModel.Order'), index: northwind };

function canonical(text: string, ctx: FilterContext): string {
  return printFilter(parseFilter(text, ctx));
}

describe('$filter golden examples (spec and real clients), printed canonically', () => {
  it.each([
    ["ProjectID eq 5 and StartTime gt datetime'2026-01-01T00:00:00'", "ProjectID eq 5 and StartTime gt datetime'2026-01-01T00:00:00'"],
    ["LastChangeTime gt datetime'2015-01-02T00:00'", "LastChangeTime gt datetime'2015-01-02T00:00:00'"],
    ["substringof('x',Comment)", "substringof('x',Comment)"],
    ["substringof('x', Comment) eq true", "substringof('x',Comment) eq true"],
    ["startswith(Comment,'A') eq true", "startswith(Comment,'A') eq true"],
    ['year(StartTime) eq 2026', 'year(StartTime) eq 2026'],
    ["month(StartTime) eq 11 and day(StartTime) le 22 and hour(StartTime) ge 9", 'month(StartTime) eq 11 and day(StartTime) le 22 and hour(StartTime) ge 9'],
    ["Project/Client/Name eq 'ACME'", "Project/Client/Name eq 'ACME'"],
    ["Task eq null", 'Task eq null'],
    ['TaskID ne null', 'TaskID ne null'],
    ['(ProjectID eq 1 or ProjectID eq 2) and Billable', '(ProjectID eq 1 or ProjectID eq 2) and Billable'],
    ['ProjectID eq 1 or ProjectID eq 2 and Billable', 'ProjectID eq 1 or ProjectID eq 2 and Billable'],
    ['not Billable', 'not Billable'],
    ['not (Billable eq true)', 'not (Billable eq true)'],
    ['not(Locked)', 'not Locked'],
    ["tolower(Comment) eq 'x' and length(trim(Comment)) gt 3", "tolower(Comment) eq 'x' and length(trim(Comment)) gt 3"],
    ["concat(concat(Custom1,', '),Custom2) eq 'a, b'", "concat(concat(Custom1,', '),Custom2) eq 'a, b'"],
    ["indexof(Comment,'x') eq -1 and substring(Comment,1,2) eq 'ab' and replace(Comment,'a','b') ne 'c'", "indexof(Comment,'x') eq -1 and substring(Comment,1,2) eq 'ab' and replace(Comment,'a','b') ne 'c'"],
    ['ProjectID add 2 mul 3 eq 11', 'ProjectID add 2 mul 3 eq 11'],
    ['(ProjectID add 2) mul 3 eq 12', '(ProjectID add 2) mul 3 eq 12'],
    ['ProjectID sub (TaskID sub 1) gt 0', 'ProjectID sub (TaskID sub 1) gt 0'],
    ['-ProjectID lt -5', '-ProjectID lt -5'],
    ['- 5 eq ProjectID', '-(5) eq ProjectID'],
    ['ProjectID mod 2 eq 0', 'ProjectID mod 2 eq 0'],
    ["Comment eq 'it''s'", "Comment eq 'it''s'"],
    ['Billable eq true  and   Locked eq false', 'Billable eq true and Locked eq false'],
  ])('%s', (text, printed) => {
    expect(canonical(text, timeEntries)).toBe(printed);
  });

  it.each([
    ['HourlyRate gt 12.5M', 'HourlyRate gt 12.5M'],
    ['HourlyRate gt 10', 'HourlyRate gt 10'],
    ['round(HourlyRate) eq 13M', 'round(HourlyRate) eq 13M'],
    ["Client/Name eq 'ACME' and Active", "Client/Name eq 'ACME' and Active"],
  ])('Projects: %s', (text, printed) => {
    expect(canonical(text, projects)).toBe(printed);
  });

  it.each([
    ["ShipmentID eq guid'12345678-ABCD-ef01-2345-6789abcdef01'", "ShipmentID eq guid'12345678-abcd-ef01-2345-6789abcdef01'"],
    ['TrackingNumber gt 9007199254740993L', 'TrackingNumber gt 9007199254740993L'],
    ['TrackingNumber gt 5', 'TrackingNumber gt 5'],
    ["ShippedAt lt datetimeoffset'2026-11-22T09:00:00+01:00'", "ShippedAt lt datetimeoffset'2026-11-22T09:00:00+01:00'"],
    ['WeightKg ge 1.5 and WeightKg le 2E3d', 'WeightKg ge 1.5d and WeightKg le 2000d'],
    ['PackageCount eq 3 and floor(WeightKg) eq 1d', 'PackageCount eq 3 and floor(WeightKg) eq 1d'],
    ["Label eq X'00FF'", "Label eq X'00FF'"],
    ['Order/Freight gt 100M', 'Order/Freight gt 100M'],
  ])('Northwind Shipments: %s', (text, printed) => {
    expect(canonical(text, shipments)).toBe(printed);
  });

  it('types literals, properties and operators (the AST a SQL translator reads)', () => {
    expect(parseFilter('UnitPrice gt 10 and Rating eq -1', products)).toEqual({
      kind: 'binary',
      op: 'and',
      type: 'Edm.Boolean',
      operandType: 'Edm.Boolean',
      left: {
        kind: 'binary',
        op: 'gt',
        type: 'Edm.Boolean',
        operandType: 'Edm.Decimal',
        left: { kind: 'property', path: ['UnitPrice'], target: 'primitive', type: 'Edm.Decimal' },
        right: { kind: 'literal', type: 'Edm.Int32', value: 10 },
      },
      right: {
        kind: 'binary',
        op: 'eq',
        type: 'Edm.Boolean',
        operandType: 'Edm.Int32',
        left: { kind: 'property', path: ['Rating'], target: 'primitive', type: 'Edm.SByte' },
        right: { kind: 'literal', type: 'Edm.Int32', value: -1 },
      },
    });
    expect(parseFilter("PreferredDeliveryTime lt time'PT9H' and minute(PreferredDeliveryTime) eq 30", orders)).toMatchObject({
      left: { operandType: 'Edm.Time', right: { type: 'Edm.Time', value: { kind: 'Time', ms: 32_400_000 } } },
      right: { left: { kind: 'call', name: 'minute', type: 'Edm.Int32' } },
    });
    expect(parseFilter('UnitsInStock add Rating gt 5', products)).toMatchObject({ left: { type: 'Edm.Int16' } });
    expect(parseFilter('UnitPrice mul 1.5 gt 5', products)).toMatchObject({ left: { type: 'Edm.Double' } });
  });

  it('reads REST names and answers with EDMX names', () => {
    const rest = { ...timeEntries, names: 'rest' as const };
    const ast = parseFilter("projectId eq 5 and project/client/name eq 'ACME'", rest);
    expect(printFilter(ast)).toBe("ProjectID eq 5 and Project/Client/Name eq 'ACME'");
    expect(() => parseFilter('ProjectID eq 5', rest)).toThrow('unknown property "ProjectID"');
  });
});

describe('$filter refusals say what and where', () => {
  function failure(text: string, ctx: FilterContext = timeEntries): Error {
    try {
      parseFilter(text, ctx);
    } catch (error) {
      return error as Error;
    }
    throw new Error(`accepted: ${text}`);
  }

  it.each([
    ["Comment eq 1", 'operator eq cannot combine Edm.String with Edm.Int32 at position 8'],
    ['Billable add 1', 'operator add cannot combine Edm.Boolean with Edm.Int32 at position 9'],
    ['Nope eq 1', 'unknown property "Nope" of Service.TimeEntry at position 0'],
    ["Project/Nope eq 'x'", 'unknown property "Nope" of Service.Project at position 8'],
    ['Project/TimeEntries/ID eq 1', 'leads to many Service.TimeEntry'],
    ['Comment/Length eq 1', 'is a primitive property (Edm.String) and has no member "Length" at position 8'],
    ['DurationSeconds gt 5', 'property "DurationSeconds" is not filterable at position 0'],
    ['ProjectID', '$filter must be an Edm.Boolean expression, this one is Edm.Int32'],
    ['ProjectID eq', 'expected an expression but found the end of the expression at position 12'],
    ['(ProjectID eq 1', "expected ')' to close '(' at position 0"],
    ['ProjectID eq 1)', 'expected an operator or the end of the expression but found ")" at position 14'],
    ['ProjectID EQ 1', 'operator "EQ" must be written in lower case: eq at position 10'],
    ['ProjectID eq 1 xor true', 'expected an operator'],
    ["startswith(Comment)", 'startswith() takes 2 argument(s), not 1'],
    ["startswith(Comment,1)", 'argument 2 of startswith() must be Edm.String, not Edm.Int32'],
    ["year(Comment) eq 1", 'argument 1 of year() must be Edm.DateTime'],
    ["frobnicate(Comment)", 'unknown function "frobnicate" at position 0'],
    ["Comment(1) eq 'x'", 'unknown function "Comment"'],
    ['ProjectID eq 1 and', 'expected an expression'],
    ['not ProjectID', 'not needs an Edm.Boolean operand, not Edm.Int32 at position 0'],
    ["-Comment eq 'x'", 'unary - needs a numeric operand'],
    ['null eq null', 'operator eq cannot combine null with null'],
    ['Project eq 5', 'operator eq cannot combine Service.Project with Edm.Int32'],
    ['Billable gt false', 'operator gt cannot combine Edm.Boolean with Edm.Boolean'],
    ['ProjectID eq "5"', 'unexpected character "\\"" at position 13'],
    ["StartTime gt 2026-01-01", 'bare date and time literals are OData V4 only'],
    ['ProjectID eq 12abc', 'malformed number 12abc at position 13'],
    ["Comment eq 'open", 'string literal is not closed at position 11'],
  ])('%s', (text, message) => {
    const error = failure(text);
    expect(error).toBeInstanceOf(ExpressionError);
    expect(error.message).toContain(message);
    expect((error as ExpressionError).status).toBe(400);
  });

  it.each([
    ["TimeEntries/any(t: t/Billable)", 'lambda operator any() is OData V4 only', projects],
    ["TimeEntries/all(t: t/Billable)", 'lambda operator all() is OData V4 only', projects],
    ["contains(Name,'x')", 'function contains() is OData V4 only', projects],
    ["Name in ('a','b')", 'the in operator is OData V4 only', projects],
    ['ID has 1', 'the has operator is OData V4 only', projects],
    ['$it/ID eq 1', '$it is OData V4 only', projects],
    ['now() gt LastChangeTime', 'function now() is OData V4 only', projects],
  ] as Array<[string, string, FilterContext]>)('refuses V4-only %s', (text, message, ctx) => {
    const error = failure(text, ctx);
    expect(error).toBeInstanceOf(ExpressionError);
    expect(error.message).toContain(message);
  });

  it('refuses an invalid literal with its position', () => {
    const error = failure("StartTime gt datetime'2026-13-01T00:00'");
    expect(error).toBeInstanceOf(LiteralError);
    expect(error.message).toContain('at position 13');
  });

  it('allows filtering on unfilterable properties when capabilities are not enforced', () => {
    expect(canonical('DurationSeconds gt 5', { ...timeEntries, enforceCapabilities: false })).toBe('DurationSeconds gt 5');
  });
});

describe('$filter limits against abuse', () => {
  it('refuses a filter longer than the limit before reading it', () => {
    const text = `Comment eq '${'x'.repeat(10 * 1024 * 1024)}'`;
    expect(() => parseFilter(text, timeEntries)).toThrow(LimitError);
  });

  it('refuses a 10 MB literal with a LimitError even when the length limit is lifted', () => {
    const text = `Comment eq '${'x'.repeat(10 * 1024 * 1024)}'`;
    const ctx = { ...timeEntries, limits: { maxFilterLength: 20 * 1024 * 1024 } };
    expect(() => parseFilter(text, ctx)).toThrow(LimitError);
    expect(() => parseFilter(text, ctx)).toThrow('literal at position 11 is longer than 2048 characters');
  });

  it('refuses 10 000 nested parentheses with a LimitError, not a stack overflow', () => {
    const text = `${'('.repeat(10_000)}Billable${')'.repeat(10_000)}`;
    const ctx = { ...timeEntries, limits: { maxFilterLength: 100_000 } };
    expect(() => parseFilter(text, ctx)).toThrow(LimitError);
    expect(() => parseFilter(text, ctx)).toThrow('nests deeper than 50 levels');
  });

  it('refuses 10 000 stacked unary operators and function calls', () => {
    const ctx = { ...timeEntries, limits: { maxFilterLength: 1_000_000 } };
    expect(() => parseFilter(`${'not '.repeat(10_000)}Billable`, ctx)).toThrow(LimitError);
    expect(() => parseFilter(`${'-'.repeat(10_000)}ProjectID eq 1`, ctx)).toThrow(LimitError);
    expect(() => parseFilter(`${'trim('.repeat(10_000)}Comment${')'.repeat(10_000)} eq 'x'`, ctx)).toThrow(LimitError);
  });

  it('refuses more nodes than the limit, and lets the limit be raised', () => {
    const text = Array.from({ length: 70 }, (_, i) => `ProjectID eq ${i}`).join(' or ');
    expect(() => parseFilter(text, timeEntries)).toThrow('more than 200 nodes');
    expect(() => parseFilter(text, { ...timeEntries, limits: { maxFilterNodes: 300 } })).not.toThrow();
  });
});
