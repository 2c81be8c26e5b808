// model.ts: the parsed model as a typed constant, so the service and the gateway read the model
// at runtime without parsing EDMX.
import path from 'node:path';
import type { Model } from '../odata/model.js';
import type { EmitContext, Emitter, GeneratedFile } from './emitter.js';
import { formatSource, tsLiteral } from './format.js';

export const emitModel: Emitter = (model: Model, context?: EmitContext): GeneratedFile[] => {
  const text = [
    `import type { Model } from '${modelTypeImport(context)}';`,
    '',
    `export const model: Model = ${tsLiteral(model, 0)};`,
    '',
  ].join('\n');
  return [{ path: 'model.ts', contents: formatSource('model.ts', text) }];
};

/** Import path of odata/model.js from the output directory (`../odata/model.js` for generated/). */
export function modelTypeImport(context?: EmitContext): string {
  if (!context) return '../odata/model.js';
  const relative = path.relative(context.outDir, path.join(context.repoRoot, 'odata', 'model.js')).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}
