// `npm run bench` runs every suite; `npm run bench -- odata` only the named ones;
// `npm run bench -- --list` names them. Suites run one at a time, in the order of suites.ts.
import os from 'node:os';
import { suites } from './suites.js';

function usage(): string {
  return `usage: npm run bench [-- <suite>...]\nsuites:\n${suites.map((s) => `  ${s.name.padEnd(16)} ${s.description}`).join('\n')}`;
}

async function main(args: readonly string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h') || args.includes('--list')) {
    console.log(usage());
    return 0;
  }
  const unknown = args.filter((name) => !suites.some((s) => s.name === name));
  if (unknown.length > 0) {
    console.error(`unknown suite ${unknown.join(', ')}\n${usage()}`);
    return 2;
  }
  const chosen = args.length === 0 ? suites : suites.filter((s) => args.includes(s.name));
  // Ratios only mean something on a known machine: say which one.
  const cpus = os.cpus();
  console.log(`node ${process.version}, ${os.platform()} ${os.arch()}, ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown cpu'})`);
  for (const suite of chosen) {
    console.log(`\n## ${suite.name}: ${suite.description}\n`);
    await suite.run();
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
