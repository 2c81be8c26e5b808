import { describe, expect, it } from 'vitest';
import { parseQueryOptions } from '../../odata/query-options.js';
import { parseResourcePath } from '../../odata/resource-path.js';
import { printFilter } from '../../odata/filter-printer.js';
import { ExpressionError, LimitError, NotAcceptableError, UriSyntaxError } from '../../odata/errors.js';
import type { QueryOptionsConfig } from '../../odata/query-options.js';
import { northwind, timetracking } from './filter-fixtures.js';

function options(path: string, query: string | URLSearchParams, config?: QueryOptionsConfig, index = timetracking) {
  return parseQueryOptions(query, parseResourcePath(path, index), index, config);
}

describe('system query options of a collection', () => {
  it('reads the options a real client sends', () => {
    const q = options(
      '/TimeEntries',
      "$filter=ProjectID%20eq%207%20and%20StartTime%20gt%20datetime'2026-01-01T00:00:00'&$orderby=StartTime desc,ID&$top=50&$skip=10&$skiptoken='123'&$inlinecount=allpages&$format=json&ApiKey=secret&orderby=Name",
    );
    expect(printFilter(q.filter!)).toBe("ProjectID eq 7 and StartTime gt datetime'2026-01-01T00:00:00'");
    expect(q.orderBy).toEqual([
      { path: ['StartTime'], type: 'Edm.DateTime', direction: 'desc' },
      { path: ['ID'], type: 'Edm.Int32', direction: 'asc' },
    ]);
    expect(q).toMatchObject({ top: 50, skip: 10, skipToken: "'123'", inlineCount: 'allpages', format: 'json' });
    expect([...q.custom]).toEqual([
      ['ApiKey', 'secret'],
      ['orderby', 'Name'],
    ]);
  });

  it('decodes + as a space and accepts URLSearchParams', () => {
    expect(printFilter(options('/Projects', '$filter=Name+eq+%27a%2Bb%27').filter!)).toBe("Name eq 'a+b'");
    const params = new URLSearchParams({ $filter: "Client/Name eq 'ACME'", $orderby: 'Client/Name asc' });
    const q = options('/Projects', params);
    expect(printFilter(q.filter!)).toBe("Client/Name eq 'ACME'");
    expect(q.orderBy).toEqual([{ path: ['Client', 'Name'], type: 'Edm.String', direction: 'asc' }]);
  });

  it('has defaults when nothing is given', () => {
    expect(options('/Projects', '')).toEqual({
      filter: undefined,
      orderBy: [],
      top: undefined,
      skip: undefined,
      skipToken: undefined,
      inlineCount: 'none',
      select: undefined,
      expand: [],
      format: undefined,
      callback: undefined,
      custom: new Map(),
    });
  });

  it('reads $format as a keyword or a full media type', () => {
    expect(options('/Projects', '$format=atom').format).toBe('atom');
    expect(options('/Projects', '$format=XML').format).toBe('xml');
    expect(options('/Projects', '$format=application/json;odata=verbose').format).toBe('application/json;odata=verbose');
    expect(() => options('/Projects', '$format=csv')).toThrow(NotAcceptableError);
  });

  it('accepts a JSONP callback only as a safe identifier path', () => {
    expect(options('/Projects', '$callback=jQuery123_456').callback).toBe('jQuery123_456');
    expect(options('/Projects', '$callback=app.handlers.$done').callback).toBe('app.handlers.$done');
    for (const bad of ['alert(1)', 'a.', '.a', '1a', 'a b', 'a;b', '</script>', 'a[0]']) {
      expect(() => options('/Projects', `$callback=${encodeURIComponent(bad)}`)).toThrow('$callback must be a JavaScript identifier');
    }
  });
});

describe('$expand and $select', () => {
  it('builds the expand tree from nested and repeated paths', () => {
    const q = options('/TimeEntries', '$expand=Project/Client,Task,Project/TimeEntries');
    const tree = (items: typeof q.expand): unknown => items.map((e) => ({ [e.navigation.name]: tree(e.expand), set: e.set.name }));
    expect(tree(q.expand)).toEqual([
      { Project: [{ Client: [], set: 'Clients' }, { TimeEntries: [], set: 'TimeEntries' }], set: 'Projects' },
      { Task: [], set: 'Tasks' },
    ]);
  });

  it('selects properties, *, navigation properties and paths through expanded navigation', () => {
    const q = options('/TimeEntries', '$select=ID, StartTime,Project,Task/Description,Task/*&$expand=Task');
    expect(q.select?.map((s) => (s.kind === 'property' ? [...s.navigation, s.property.name].join('/') : `${s.kind}:${s.navigation.join('/')}`))).toEqual([
      'ID',
      'StartTime',
      'navigation:Project',
      'Task/Description',
      'all:Task',
    ]);
    expect(options('/Projects', '$select=*').select).toEqual([{ kind: 'all', navigation: [] }]);
  });

  it.each([
    ['$expand=Comment', '"Comment" is a property, not a navigation property of Service.TimeEntry'],
    ['$expand=Nope', '"Nope" is not a navigation property of Service.TimeEntry'],
    ['$expand=Project//Client', 'empty path or segment'],
    ['$select=Task/Description', 'goes through Task, which $expand must name'],
    ['$select=Nope', '"Nope" is not a property of Service.TimeEntry'],
  ])('refuses %s', (query, message) => {
    expect(() => options('/TimeEntries', query)).toThrow(UriSyntaxError);
    expect(() => options('/TimeEntries', query)).toThrow(message);
  });

  it('limits expand depth and breadth', () => {
    expect(() => options('/TimeEntries', '$expand=Project/Client/Projects/TimeEntries')).toThrow(LimitError);
    expect(options('/TimeEntries', '$expand=Project/Client/Projects/TimeEntries', { limits: { maxExpandDepth: 4 } }).expand).toHaveLength(1);
    const many = Array.from({ length: 21 }, () => 'Task').join(',');
    expect(() => options('/TimeEntries', `$expand=${many}`)).toThrow('more than 20 paths');
  });
});

describe('query option errors', () => {
  it.each([
    ['$filter=ProjectID eq 1&$filter=ProjectID eq 2', 'system query option $filter is given twice'],
    ['$foo=1', 'unknown system query option $foo'],
    ['$search=abc', 'unknown system query option $search (it is OData V4 only)'],
    ['$count=true', '(it is OData V4 only)'],
    ['$Filter=ID eq 1', 'unknown system query option $Filter'],
    ['$top=-1', '$top must be a non-negative integer'],
    ['$top=1.5', '$top must be a non-negative integer'],
    ['$skip=abc', '$skip must be a non-negative integer'],
    ['$skip=99999999999999999999', '$skip is too large'],
    ['$top=', 'system query option $top has no value'],
    ['$inlinecount=yes', '$inlinecount must be allpages or none'],
    ['$filter=Name%ZZ', 'invalid percent-encoding'],
    ['$filter=%C3%28', 'invalid percent-encoding or UTF-8'],
  ])('%s', (query, message) => {
    expect(() => options('/Projects', query)).toThrow(UriSyntaxError);
    expect(() => options('/Projects', query)).toThrow(message);
  });

  it('caps $top, and the cap is configurable', () => {
    expect(() => options('/Projects', '$top=1001')).toThrow(LimitError);
    expect(() => options('/Projects', '$top=99999999999999999999999')).toThrow('$top may be at most 1000');
    expect(options('/Projects', '$top=5000', { limits: { maxTop: 5000 } }).top).toBe(5000);
  });

  it('refuses options the addressed resource does not take', () => {
    expect(() => options('/Projects(7)', '$top=1')).toThrow('$top does not apply to this resource');
    expect(() => options('/Projects(7)/Name', "$filter=Name eq 'x'")).toThrow('$filter does not apply to this resource');
    expect(() => options('/Projects/$count', '$inlinecount=allpages')).toThrow('$inlinecount does not apply');
    expect(() => options('/$metadata', '$top=1')).toThrow(UriSyntaxError);
    expect(options('/Projects(7)', '$expand=Client&$select=Name,Client').expand).toHaveLength(1);
    expect(options('/Projects/$count', '$filter=Active').filter).toBeDefined();
  });

  it('applies $filter and $orderby to the target of $links and of function imports', () => {
    expect(options('/Projects(7)/$links/TimeEntries', '$filter=Billable&$top=5').top).toBe(5);
    const q = options('/GetProductsAbovePrice', '$filter=Discontinued&MinUnitPrice=10M', {}, northwind);
    expect(printFilter(q.filter!)).toBe('Discontinued');
    expect(q.custom.get('MinUnitPrice')).toBe('10M');
    expect(() => options('/StartStopWatch', '$top=1')).toThrow('$top does not apply');
  });

  it('refuses $orderby on unsortable properties and non-paths, with positions', () => {
    expect(() => options('/Projects', '$orderby=Comment')).toThrow('property "Comment" is not sortable at position 0');
    expect(() => options('/Projects', '$orderby=Name,tolower(Name)')).toThrow(ExpressionError);
    expect(() => options('/Projects', '$orderby=Name up')).toThrow("expected 'asc', 'desc', ',' or the end of $orderby but found \"up\" at position 5");
    expect(() => options('/Projects', '$orderby=TimeEntries/ID')).toThrow('leads to many');
    expect(() => options('/Projects', '$orderby=Client')).toThrow('sorts by primitive properties');
    const eleven = Array.from({ length: 11 }, () => 'Name').join(',');
    expect(() => options('/Projects', `$orderby=${eleven}`)).toThrow(LimitError);
  });

  it('refuses an oversized $skiptoken and keeps __proto__ custom options harmless', () => {
    expect(() => options('/Projects', `$skiptoken=${'x'.repeat(3000)}`)).toThrow(LimitError);
    const q = options('/Projects', '__proto__=x&constructor=y');
    expect(q.custom.get('__proto__')).toBe('x');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
