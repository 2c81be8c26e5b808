// What the gateway is built from: the codegen output of one model (model.ts, validators.js,
// openapi.json), loaded once at start-up. The same three files drive every route, check and
// document, so a second model (Northwind, or any V2 service's $metadata) needs no code change.
import { access, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Model } from '../odata/model.js';
import type { RestValidators } from './rest/validation.js';

export interface GatewayArtefacts {
  readonly model: Model;
  readonly openapi: OpenAPIV3_1.Document;
  readonly validators: RestValidators;
}

/** The artefacts codegen wrote into `dir` (a `generated/` folder). */
export async function loadGeneratedArtefacts(dir: string): Promise<GatewayArtefacts> {
  const folder = resolve(dir);
  // The built package's copy holds tsc's model.js; a codegen folder holds model.ts, which tsx, or
  // Node 22's own type stripping, loads.
  const modelFile = await access(join(folder, 'model.js')).then(() => 'model.js', () => 'model.ts');
  const [modelModule, validatorsModule, openapiText] = await Promise.all([
    import(pathToFileURL(join(folder, modelFile)).href) as Promise<{ model?: Model }>,
    import(pathToFileURL(join(folder, 'validators.js')).href) as Promise<Partial<RestValidators>>,
    readFile(join(folder, 'openapi.json'), 'utf8'),
  ]);
  const { model } = modelModule;
  const { validators, describeErrors } = validatorsModule;
  if (model === undefined || validators === undefined || typeof describeErrors !== 'function') {
    throw new Error(`${folder} does not hold codegen output (model.ts, validators.js, openapi.json)`);
  }
  return { model, openapi: JSON.parse(openapiText) as OpenAPIV3_1.Document, validators: { validators, describeErrors } };
}
