// schemas.json, validators.js and validators.d.ts: every schema of the REST face compiled by ajv
// at codegen time into standalone ESM code, so the gateway compiles nothing at start-up.
// Query-string schemas (list queries, parameters of GET operations) are compiled by a second
// ajv with type coercion ("7" -> 7, "true" -> true); bodies are never coerced.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone/index.js';
import type { Model } from '../odata/model.js';
import type { Emitter, GeneratedFile } from './emitter.js';
import { formatSource } from './format.js';
import type { JsonSchema } from './json-schema.js';
import { SCHEMA_REF_PREFIX, buildSchemaSet } from './json-schema.js';
import { DESCRIBE_ERRORS_JS } from './validation-messages.js';

export const emitValidators: Emitter = (model: Model): GeneratedFile[] => {
  const { schemas, queryStringSchemas, patternHints } = buildSchemaSet(model);
  const names = Object.keys(schemas);
  const queryNames = names.filter((n) => queryStringSchemas.includes(n));
  const bodyNames = names.filter((n) => !queryStringSchemas.includes(n));
  const blocks = [
    { variable: 'bodyValidators', code: compileStandalone(schemas, bodyNames, false) },
    { variable: 'queryValidators', code: compileStandalone(schemas, queryNames, true) },
  ];
  return [
    { path: 'schemas.json', contents: `${JSON.stringify(schemas, null, 2)}\n` },
    { path: 'validators.js', contents: formatSource('validators.js', validatorsModule(blocks, names, queryNames, patternHints)) },
    { path: 'validators.d.ts', contents: formatSource('validators.d.ts', declarations(names, queryNames)) },
  ];
};

/** ajv's own copy of a schema: refs by schema id, no `x-` extensions (ajv's strict mode refuses them). */
function forAjv(schema: JsonSchema): unknown {
  return JSON.parse(JSON.stringify(schema), (key: string, value: unknown) => {
    if (key.startsWith('x-')) return undefined;
    if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF_PREFIX)) return value.slice(SCHEMA_REF_PREFIX.length);
    return value;
  });
}

/** CommonJS-shaped standalone code (`exports.Name = ...`, `require(...)`) of the named schemas. */
function compileStandalone(schemas: Record<string, JsonSchema>, names: readonly string[], coerce: boolean): string {
  const ajv = new Ajv2020({
    code: { source: true, lines: true },
    allErrors: true,
    allowUnionTypes: true,
    inlineRefs: false,
    messages: false,
    coerceTypes: coerce,
    strict: true,
  });
  addFormats.default(ajv);
  for (const [name, schema] of Object.entries(schemas)) {
    ajv.addSchema({ $id: name, ...(forAjv(schema) as object) });
  }
  if (names.length === 0) return '';
  return standaloneCode.default(ajv, Object.fromEntries(names.map((n) => [n, n])));
}

interface Block {
  readonly variable: string;
  readonly code: string;
}

/**
 * The ESM module. The standalone code is CommonJS-shaped (`require` of ajv's runtime helpers and
 * of ajv-formats); each block runs in its own function scope with a real `require` for them, so
 * the helpers load exactly as ajv expects, under Node and under any test runner.
 */
function validatorsModule(blocks: readonly Block[], names: readonly string[], queryNames: readonly string[], patternHints: Record<string, string>): string {
  const lines = [
    "import { createRequire } from 'node:module';",
    '',
    'const requireRuntime = createRequire(import.meta.url);',
    '',
    ...blocks.map((b) => `const ${b.variable} = (function (exports, require) {\n${b.code}\nreturn exports;\n})({}, requireRuntime);\n`),
    '/** Every validator by schema name. */',
    'export const validators = Object.freeze({',
    ...names.map((n) => `  ${JSON.stringify(n)}: ${queryNames.includes(n) ? 'queryValidators' : 'bodyValidators'}[${JSON.stringify(n)}],`),
    '});',
    '',
    '/** Schemas whose data comes from a query string: their validators coerce types and mutate the data. */',
    `export const queryStringSchemas = Object.freeze(${JSON.stringify(queryNames)});`,
    '',
    ...names.map((n) => `export const ${n} = validators[${JSON.stringify(n)}];`),
    '',
    `const patternHints = ${JSON.stringify(patternHints, null, 2)};`,
    DESCRIBE_ERRORS_JS,
  ];
  return lines.join('\n');
}

function declarations(names: readonly string[], queryNames: readonly string[]): string {
  const nameUnion = names.map((n) => JSON.stringify(n)).join(' | ');
  return [
    "import type { ErrorObject, ValidateFunction } from 'ajv';",
    "import type * as types from './types.js';",
    '',
    `export type SchemaName = ${nameUnion};`,
    '',
    '/** Every validator by schema name. */',
    'export declare const validators: Readonly<Record<string, ValidateFunction>>;',
    '',
    '/** Schemas whose data comes from a query string: their validators coerce types and mutate the data. */',
    `export declare const queryStringSchemas: readonly (${queryNames.map((n) => JSON.stringify(n)).join(' | ') || 'never'})[];`,
    '',
    ...names.map((n) => `export declare const ${n}: ValidateFunction<types.${n}>;`),
    '',
    '/** One invalid field: a JSON pointer (RFC 6901) into the body or query, and what is wrong with it. */',
    'export interface FieldError {',
    '  readonly pointer: string;',
    '  readonly detail: string;',
    '}',
    '',
    '/** Turns ajv errors into one item per problem, naming the field in REST terms. */',
    'export declare function describeErrors(errors: readonly ErrorObject[] | null | undefined): FieldError[];',
    '',
  ].join('\n');
}
