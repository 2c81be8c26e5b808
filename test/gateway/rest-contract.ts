// The REST face checked against its contract: every response a suite receives is validated with
// ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses) against the response schema openapi.json gives
// for that operation and status, and its media type against the document's. Suites record which
// operations they exercised, so a test can prove that every operation of the document was.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import { expect } from 'vitest';

type Operation = OpenAPIV3_1.OperationObject;

export interface OperationAt {
  readonly method: string;
  readonly path: string;
  readonly operation: Operation;
}

export interface Checked {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body (undefined for none). */
  readonly body: unknown;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export class RestContract {
  readonly operations = new Map<string, OperationAt>();
  readonly exercised = new Set<string>();
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenAPIV3_1.Document) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema({ ...document, $id: 'openapi.json' } as object);
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const method of METHODS) {
        const operation = item?.[method];
        if (operation?.operationId !== undefined) this.operations.set(operation.operationId, { method, path, operation });
      }
    }
  }

  /** The response object of `operationId` for `status`, with a `$ref` into components resolved. */
  private responseOf(operationId: string, status: number): { pointer: string; response: OpenAPIV3_1.ResponseObject } {
    const at = this.operations.get(operationId);
    if (at === undefined) throw new Error(`no operation ${operationId} in openapi.json`);
    const given = at.operation.responses?.[String(status)];
    expect(given, `${operationId} documents status ${status}`).toBeDefined();
    const escapedPath = at.path.replaceAll('~', '~0').replaceAll('/', '~1');
    if (given !== undefined && '$ref' in given) {
      const name = given.$ref.split('/').pop() as string;
      return { pointer: given.$ref, response: this.document.components?.responses?.[name] as OpenAPIV3_1.ResponseObject };
    }
    return { pointer: `#/paths/${escapedPath}/${at.method}/responses/${status}`, response: given as OpenAPIV3_1.ResponseObject };
  }

  private validatorOf(pointer: string, mediaType: string): ValidateFunction {
    const ref = mediaType === '' ? `openapi.json${pointer}` : `openapi.json${pointer}/content/${mediaType.replaceAll('~', '~0').replaceAll('/', '~1')}/schema`;
    let validate = this.validators.get(ref);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }

  /** Reads the response, checks status, media type and body against the document, and returns them. */
  async check(operationId: string, response: Response, expectedStatus: number): Promise<Checked> {
    const text = await response.text();
    expect(response.status, `${operationId}: ${text.slice(0, 500)}`).toBe(expectedStatus);
    this.exercised.add(operationId);
    const { pointer, response: documented } = this.responseOf(operationId, response.status);
    const content = documented.content ?? {};
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) {
      expect(text, `${operationId} ${response.status} has no body`).toBe('');
      return { status: response.status, headers: response.headers, body: undefined };
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    expect(mediaTypes, `${operationId} ${response.status} content type`).toContain(mediaType);
    const body: unknown = JSON.parse(text);
    const validate = this.validatorOf(pointer, mediaType);
    expect(validate(body) ? [] : validate.errors, `${operationId} ${response.status} body matches openapi.json`).toEqual([]);
    for (const name of Object.keys(documented.headers ?? {})) {
      if (name.toLowerCase() === 'location' || name.toLowerCase() === 'etag') {
        expect(response.headers.get(name), `${operationId} ${response.status} sends ${name}`).toBeTruthy();
      }
    }
    return { status: response.status, headers: response.headers, body };
  }

  /** A problem document (any route, documented or not) with `status`, valid for the Problem schema. */
  async problem(response: Response, status: number): Promise<{ type: string; title: string; status: number; detail?: string; instance?: string; code?: string; errors?: { pointer: string; detail: string }[] }> {
    const text = await response.text();
    expect(response.status, text.slice(0, 500)).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body: unknown = JSON.parse(text);
    const validate = this.validatorOf('#/components/schemas/Problem', '');
    expect(validate(body) ? [] : validate.errors).toEqual([]);
    expect(text).not.toMatch(/\bat .+\.(ts|js):\d+/);
    const problem = body as { status: number };
    expect(problem.status).toBe(status);
    return body as never;
  }

  /** Operation ids of the document no check has seen yet. */
  unexercised(): string[] {
    return [...this.operations.keys()].filter((id) => !this.exercised.has(id)).sort();
  }
}
