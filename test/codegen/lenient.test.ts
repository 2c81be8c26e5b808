// `codegen --lenient` (issue 29): the $metadata of services we do not control carry OData V3/V4
// elements and SAP quirks. Strict reading (the default) reports every problem of such a model at
// once and generates nothing; lenient reading skips or maps each construct it does not support,
// one warning each, and generates the rest: types, validators, OpenAPI and client that compile,
// load and validate, for every metadata file under test/fixtures/, and whose descriptions speak
// of that model, not of time tracking.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { readEdmx, readEdmxWithWarnings } from '../../codegen/edmx-reader.js';
import { EdmxError } from '../../codegen/errors.js';
import { emitContextFor, generate } from '../../codegen/generate.js';
import { expectOneLineError, timegate } from '../helpers/cli.js';

const SAP = 'test/fixtures/sap-gateway/sap-gateway.edmx';
const tmpRoot = path.resolve('test/codegen/.tmp');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function freshDir(prefix: string): string {
  mkdirSync(tmpRoot, { recursive: true });
  const dir = mkdtempSync(path.join(tmpRoot, prefix));
  dirs.push(dir);
  return dir;
}

/** Every metadata file under test/fixtures/. */
function fixtureEdmxFiles(dir = 'test/fixtures'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return fixtureEdmxFiles(file);
    return /\.(edmx|xml)$/.test(entry.name) ? [file] : [];
  });
}

function typeErrors(files: string[]): string[] {
  const config = ts.readConfigFile(path.resolve('tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, path.resolve('.'));
  const program = ts.createProgram(files, { ...options, noEmit: true });
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? path.basename(d.file.fileName) : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('strict reading (the default) of a SAP-flavoured $metadata', () => {
  it('fails with every problem at once, each on its own line', () => {
    let error: unknown;
    try {
      readEdmx(readFileSync(SAP, 'utf8'));
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(EdmxError);
    const lines = (error as EdmxError).message.split('\n');
    expect(lines[0]).toBe('5 problems (--lenient skips what it does not support):');
    expect(lines.slice(1)).toEqual([
      '  - Schema ZSD_SALES_SRV: element <EnumType> is not supported here',
      '  - Association ZSD_SALES_SRV.SalesOrder_Notes: element <Principal> is not supported here',
      '  - EntityType ZSD_SALES_SRV.SalesOrder: key property SalesOrderID must be Nullable="false"',
      '  - EntityType ZSD_SALES_SRV.SalesOrderNote: no Key element',
      '  - more than one EntityContainer is not supported',
    ]);
  });
});

describe('lenient reading of a SAP-flavoured $metadata', () => {
  const { model, warnings } = readEdmxWithWarnings(readFileSync(SAP, 'utf8'), { lenient: true });

  it('warns once for each of the five constructs it skips or maps', () => {
    const about = (pattern: RegExp) => warnings.filter((w) => pattern.test(w));
    expect(about(/^skipped <EnumType Name="OrderStatus"> in Schema ZSD_SALES_SRV/)).toHaveLength(1);
    expect(about(/^skipped <Principal> in Association ZSD_SALES_SRV\.SalesOrder_Notes/)).toHaveLength(1);
    expect(about(/^read key property ZSD_SALES_SRV\.SalesOrder\/SalesOrderID as Nullable="false"/)).toHaveLength(1);
    expect(about(/^skipped EntityType ZSD_SALES_SRV\.SalesOrderNote: .*no Key element/)).toHaveLength(1);
    expect(about(/^skipped EntityContainer ZSD_SALES_SRV_Legacy \(generating ZSD_SALES_SRV_Entities\)/)).toHaveLength(1);
  });

  it('and once for each construct that referred to a skipped one, which goes too', () => {
    expect(warnings.slice(5)).toEqual([
      expect.stringMatching(/^skipped Property ZSD_SALES_SRV\.SalesOrder\/Status: .*ZSD_SALES_SRV\.OrderStatus/),
      expect.stringMatching(/^skipped Association ZSD_SALES_SRV\.SalesOrder_Notes: /),
      expect.stringMatching(/^skipped EntitySet SalesOrderNoteSet: /),
      expect.stringMatching(/^skipped AssociationSet SalesOrder_NotesSet: /),
      expect.stringMatching(/^skipped FunctionImport LatestNotes: /),
    ]);
    expect(warnings).toHaveLength(10);
  });

  it('keeps everything else, the key read as not nullable', () => {
    expect(model.containerName).toBe('ZSD_SALES_SRV_Entities');
    expect(model.entitySets.map((s) => s.name)).toEqual(['SalesOrderSet', 'SalesOrderItemSet']);
    expect(model.entityTypes.map((t) => t.name)).toEqual(['SalesOrder', 'SalesOrderItem']);
    const order = model.entityTypes[0];
    expect(order?.properties.map((p) => p.name)).toEqual(['SalesOrderID', 'CustomerName', 'NetAmount', 'Currency', 'CreatedAt']);
    expect(order?.properties[0]?.nullable).toBe(false);
    expect(order?.navigationProperties.map((n) => n.name)).toEqual(['Items']);
    expect(model.associations.map((a) => a.name)).toEqual(['SalesOrder_Items']);
    expect(model.functionImports.map((f) => f.name)).toEqual(['ReleaseSalesOrder']);
    expect(model.complexTypes.map((t) => t.name)).toEqual(['Address']);
  });

  it('reads a model strict reading accepts exactly as strict reading does, without warnings', () => {
    const spec = readFileSync('spec/timetracking.edmx', 'utf8');
    const lenient = readEdmxWithWarnings(spec, { lenient: true });
    expect(lenient.warnings).toEqual([]);
    expect(lenient.model).toEqual(readEdmx(spec));
  });
});

describe.each(fixtureEdmxFiles())('codegen --lenient on %s', (file) => {
  it('generates types, validators, OpenAPI and client that compile, load and validate', async () => {
    const dir = freshDir('lenient-');
    const { model } = readEdmxWithWarnings(readFileSync(file, 'utf8'), { lenient: true });
    const files = await generate(model, emitContextFor(dir));
    for (const generated of files) writeFileSync(path.join(dir, generated.path), generated.contents);
    expect(files.map((f) => f.path).sort()).toEqual(['client.ts', 'model.ts', 'openapi.json', 'schemas.json', 'types.ts', 'validators.d.ts', 'validators.js']);

    expect(typeErrors(['model.ts', 'types.ts', 'client.ts', 'validators.d.ts'].map((name) => path.join(dir, name)))).toEqual([]);
    const validators = await import(pathToFileURL(path.join(dir, 'validators.js')).href) as Record<string, unknown>;
    expect(Object.keys(validators).length).toBeGreaterThan(0);
    const api = await SwaggerParser.validate(path.join(dir, 'openapi.json')) as { paths?: Record<string, unknown> };
    for (const set of model.entitySets) expect(Object.keys(api.paths ?? {})).toContain(`/${set.restPath}`);

    // Every description speaks of this model: the examples of the time-tracking model leaked.
    for (const name of ['openapi.json', 'schemas.json', 'types.ts', 'client.ts']) {
      const text = readFileSync(path.join(dir, name), 'utf8');
      for (const leak of ['time-entries', 'time entr', 'client/name', 'clientId', 'project/client', 'Projects(7)', '/projects']) {
        expect(text, `${name} mentions ${leak}`).not.toContain(leak);
      }
    }
    const description = (api as { info?: { description?: string } }).info?.description ?? '';
    const firstSet = model.entitySets[0];
    expect(description).toContain(`(\`/${(model.entitySets.find((s) => s.restPath.includes('-')) ?? firstSet)?.restPath ?? ''}\`)`);
  }, 120_000);
});

describe('timegate codegen --lenient', () => {
  it('lists every skipped construct on stderr and writes the artefacts; without it, every problem and nothing written', async () => {
    const out = freshDir('lenient-cli-');
    const lenient = await timegate(['codegen', '--edmx', SAP, '--out', path.join(out, 'generated'), '--lenient']);
    expect(lenient.code, lenient.stderr).toBe(0);
    const lines = lenient.stderr.split('\n').filter(Boolean);
    expect(lines.filter((l) => l.startsWith('timegate codegen: warning: '))).toHaveLength(10);
    expect(lines.at(-1)).toBe('timegate codegen: 10 construct(s) skipped or mapped (--lenient)');
    expect(lenient.stdout).toMatch(/7 written/);

    const strict = await timegate(['codegen', '--edmx', SAP, '--out', path.join(out, 'strict')]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('5 problems');
    expect(strict.stderr).toContain('no Key element');
    expect(strict.stdout).toBe('');
  }, 120_000);

  it('a single problem is still one line', async () => {
    const out = freshDir('lenient-cli-');
    const edmx = path.join(out, 'one.edmx');
    writeFileSync(edmx, readFileSync('spec/timetracking.edmx', 'utf8').replace('<EntityContainer', '<EnumType Name="Farbe"/><EntityContainer'));
    const line = expectOneLineError(await timegate(['codegen', '--edmx', edmx, '--out', path.join(out, 'x')]), 1);
    expect(line).toContain('element <EnumType> is not supported here');
  });
});

describe('description examples come from the model', () => {
  it('Northwind gets its own names; the time-tracking model keeps the ones it had', async () => {
    const { descriptionExamples } = await import('../../codegen/description-examples.js');
    const northwind = descriptionExamples(readEdmx(readFileSync('test/fixtures/northwind/northwind.edmx', 'utf8')), '/api/v1');
    expect(northwind).toMatchObject({
      resourcePath: '/order-details',
      filter: 'discontinued eq true and supplierId eq 7',
      nestedSelect: 'category/categoryName',
      entityAddress: 'Categories(7)',
      entityPath: '/api/v1/categories/7',
    });
    const timetracking = descriptionExamples(readEdmx(readFileSync('spec/timetracking.edmx', 'utf8')), '/api/v1');
    expect(timetracking).toMatchObject({
      resourcePath: '/time-entries',
      propertyCasing: '`ID` is `id`',
      filter: 'active eq true and clientId eq 7',
      select: 'name,client/name',
      expand: 'project/client',
      entityAddress: 'Projects(7)',
      itemPath: '/projects/7',
      itemSelect: 'id,name',
      listSelect: 'name',
    });
  });
});
