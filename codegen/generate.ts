// The codegen pipeline after parsing: every emitter, in a fixed order, over one Model.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Model } from '../odata/model.js';
import { emitClient } from './emit-client.js';
import { emitModel } from './emit-model.js';
import { emitOpenApi } from './emit-openapi.js';
import { emitTypes } from './emit-types.js';
import { emitValidators } from './emit-validators.js';
import type { EmitContext, Emitter, GeneratedFile } from './emitter.js';

const EMITTERS: readonly Emitter[] = [emitModel, emitTypes, emitValidators, emitOpenApi, emitClient];

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The context for files written to `outDir` (relative to the working directory) in this repository. */
export function emitContextFor(outDir: string): EmitContext {
  return { outDir: resolve(outDir), repoRoot: resolve(REPO_ROOT) };
}

/** All generated files for a model, sorted by path; two emitters may not write the same path. */
export async function generate(model: Model, context?: EmitContext): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  for (const emit of EMITTERS) files.push(...(await emit(model, context)));
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const [index, file] of files.entries()) {
    if (index > 0 && files[index - 1]?.path === file.path) {
      throw new Error(`two emitters produced ${file.path}`);
    }
  }
  return files;
}
