#!/usr/bin/env node
// `npm run build` (and `prepare`, so `npm install` runs it): tsc emits the programs' JavaScript
// into dist/, and every other file of those folders (the generated OpenAPI, schemas and ajv
// validators, the web interface's assets) is copied beside it, so modules that find their files
// next to themselves (`new URL('../generated', import.meta.url)`) find them in dist/ too.
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { include } = JSON.parse(readFileSync(`${root}tsconfig.build.json`, 'utf8'));
rmSync(`${root}dist`, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`], { stdio: 'inherit' });
for (const folder of include) {
  cpSync(`${root}${folder}`, `${root}dist/${folder}`, { recursive: true, filter: (source) => !source.endsWith('.ts') });
}
