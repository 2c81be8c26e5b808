// `timegate codegen --edmx <file|url> --out <dir> [--check] [--lenient]`
import { parseArgs } from 'node:util';
import { UsageError, type Command } from './command.js';
import { writeModelWarnings } from './options.js';

const USAGE = `Usage: timegate codegen --edmx <file or http(s) $metadata URL> --out <dir> [--check] [--lenient]

Reads an OData V2 EDMX and writes model.ts, types.ts, validators, openapi.json and client.ts to <dir>.
Every problem of the EDMX is reported at once; with --lenient, what is not supported (OData V3/V4
elements, SAP quirks) is skipped or mapped, one warning each on stderr, and the rest generated.

Options:
  --edmx <source>  EDMX file, or the $metadata URL of a running OData V2 service
  --out <dir>      output directory (created when missing)
  --check          write nothing; list stale, missing and extra files and exit 1 if any
  --lenient        skip or map unsupported constructs with a warning each instead of failing
  -h, --help       show this help`;

interface CodegenOptions {
  readonly edmx: string;
  readonly out: string;
  readonly check: boolean;
  readonly lenient: boolean;
  readonly help: boolean;
}

function options(args: readonly string[]): CodegenOptions {
  const { values } = parseArgs({
    args: [...args],
    options: {
      edmx: { type: 'string' },
      out: { type: 'string' },
      check: { type: 'boolean', default: false },
      lenient: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return { edmx: '', out: '', check: false, lenient: false, help: true };
  if (!values.edmx) throw new UsageError('missing --edmx <file or URL>');
  if (!values.out) throw new UsageError('missing --out <dir>');
  return { edmx: values.edmx, out: values.out, check: values.check, lenient: values.lenient, help: false };
}

async function run(args: readonly string[]): Promise<number> {
  const { edmx, out, check, lenient, help } = options(args);
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // The XML parser, and after it the emitters, are loaded only once the command line is good.
  const { readEdmxWithWarnings } = await import('../codegen/edmx-reader.js');
  const { loadEdmxSource } = await import('../codegen/edmx-source.js');
  const { model, warnings } = readEdmxWithWarnings(await loadEdmxSource(edmx), { lenient });
  writeModelWarnings('codegen', warnings);
  // The emitters pull in ts-morph and ajv: loaded only once there is a model to emit, so that
  // every refusal of a bad EDMX answers quickly.
  const { emitContextFor, generate } = await import('../codegen/generate.js');
  const { checkOutput, writeOutput } = await import('../codegen/write-output.js');
  const files = await generate(model, emitContextFor(out));
  const shown = out.replace(/\/+$/, '');
  if (check) {
    const differences = await checkOutput(out, files);
    for (const { status, path } of differences) process.stderr.write(`${status.padEnd(7)} ${shown}/${path}\n`);
    if (differences.length > 0) {
      process.stderr.write(`timegate codegen: ${differences.length} file(s) in ${shown} differ from ${edmx}; run timegate codegen without --check\n`);
      return 1;
    }
    process.stdout.write(`timegate codegen: ${files.length} files in ${shown} are up to date\n`);
    return 0;
  }
  const { written, unchanged, removed } = await writeOutput(out, files);
  for (const path of written) process.stdout.write(`wrote   ${shown}/${path}\n`);
  for (const path of removed) process.stdout.write(`removed ${shown}/${path}\n`);
  process.stdout.write(`timegate codegen: ${written.length} written, ${unchanged.length} unchanged, ${removed.length} removed in ${shown}\n`);
  return 0;
}

export const codegenCommand: Command = {
  name: 'codegen',
  usage: USAGE,
  run,
};
