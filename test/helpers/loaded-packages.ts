// Preloaded with `node --import` into a `timegate` process, to tell which packages it loaded:
// every module resolved is noted, and at exit the packages under node_modules among them are
// written to the file $LOADED_PACKAGES_FILE names, one a line. What a command loads before it
// answers is most of what it costs (tens to hundreds of milliseconds on Fastify, Kysely, ajv).
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const packages = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url)?.[1];
    if (name !== undefined) packages.add(name);
    return resolved;
  },
});
process.on('exit', () => {
  const file = process.env['LOADED_PACKAGES_FILE'];
  if (file !== undefined) writeFileSync(file, [...packages].sort().join('\n'));
});
