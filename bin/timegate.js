#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ that `npm install` builds (`npm run build`, through
// `prepare`), on a Node that also strips types itself (22.18 and later), as the gateway needs to
// load a codegen folder's model.ts. A checkout without dist/ (during development), or an older
// Node, runs the TypeScript sources through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(compiled) && process.features.typescript) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/main.ts');
}
