// Puts generated files on disk, touching only what changed (so file watchers and mtimes stay
// quiet on a no-op run), and compares them with what is on disk for the freshness check.
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { GENERATED_HEADER, type GeneratedFile } from './emitter.js';
import { OutputError } from './errors.js';

export type OutputStatus = 'stale' | 'missing' | 'extra';

export interface OutputDifference {
  /** Relative to the output directory, `/`-separated. */
  readonly path: string;
  readonly status: OutputStatus;
}

export interface WriteResult {
  readonly written: readonly string[];
  readonly unchanged: readonly string[];
  readonly removed: readonly string[];
}

function describe(error: unknown): string {
  if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return 'no such file or directory';
  return error instanceof Error ? error.message : String(error);
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) return undefined;
    throw new OutputError(`cannot read ${path}: ${describe(error)}`);
  }
}

/** Files below `dir` (relative, `/`-separated), or none when `dir` does not exist. */
async function listFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
      .sort();
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return [];
    throw new OutputError(`cannot list ${dir}: ${describe(error)}`);
  }
}

/** Files in `dir` that carry our header on their first line but are no longer produced. */
async function findExtra(dir: string, files: readonly GeneratedFile[]): Promise<string[]> {
  const produced = new Set(files.map((file) => file.path));
  const extra: string[] = [];
  for (const path of await listFiles(dir)) {
    if (produced.has(path)) continue;
    const contents = await readIfExists(join(dir, path));
    const firstLine = contents?.split('\n', 1)[0] ?? '';
    if (firstLine.includes(GENERATED_HEADER)) extra.push(path);
  }
  return extra;
}

/** What differs between the generated files and `dir`, in path order. */
export async function checkOutput(dir: string, files: readonly GeneratedFile[]): Promise<OutputDifference[]> {
  const differences: OutputDifference[] = [];
  for (const file of files) {
    const current = await readIfExists(join(dir, file.path));
    if (current === undefined) differences.push({ path: file.path, status: 'missing' });
    else if (current !== file.contents) differences.push({ path: file.path, status: 'stale' });
  }
  for (const path of await findExtra(dir, files)) differences.push({ path, status: 'extra' });
  return differences.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Writes the files that changed and removes generated files that are no longer produced. */
export async function writeOutput(dir: string, files: readonly GeneratedFile[]): Promise<WriteResult> {
  const written: string[] = [];
  const unchanged: string[] = [];
  for (const file of files) {
    const target = join(dir, file.path);
    if ((await readIfExists(target)) === file.contents) {
      unchanged.push(file.path);
      continue;
    }
    try {
      await mkdir(dirname(target), { recursive: true });
      // Write then rename, so a reader never sees half a file.
      const temporary = `${target}.${process.pid}.tmp`;
      await writeFile(temporary, file.contents, 'utf8');
      await rename(temporary, target);
    } catch (error) {
      throw new OutputError(`cannot write ${target}: ${describe(error)}`);
    }
    written.push(file.path);
  }
  const removed = await findExtra(dir, files);
  for (const path of removed) {
    try {
      await rm(join(dir, path));
    } catch (error) {
      throw new OutputError(`cannot remove ${join(dir, path)}: ${describe(error)}`);
    }
  }
  return { written, unchanged, removed };
}
