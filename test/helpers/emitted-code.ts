// Generated code checked the way a user's build checks it: written into a fresh folder of its
// own (under a suite folder's .tmp/, removed after the file's tests), compiled with the
// repository's TypeScript settings and linted with its ESLint rules.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { afterAll } from 'vitest';

export const repoRoot = path.resolve('.');

/**
 * Call at a test file's top level: a function that makes a fresh folder `<prefix>XXXXXX` under
 * `root` each call; all of them are removed after the file's tests.
 */
export function tempFolders(root = 'test/codegen/.tmp'): (prefix: string) => string {
  const tmpRoot = path.resolve(root);
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    mkdirSync(tmpRoot, { recursive: true });
    const dir = mkdtempSync(path.join(tmpRoot, prefix));
    dirs.push(dir);
    return dir;
  };
}

/** The compiler's complaints about the files under the repository's tsconfig.json, each headed by its file's name. */
export function typeErrors(files: string[]): string[] {
  const config = ts.readConfigFile(path.join(repoRoot, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot);
  const program = ts.createProgram(files, { ...options, noEmit: true });
  return ts.getPreEmitDiagnostics(program).map(
    (d) => `${d.file ? path.basename(d.file.fileName) : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
  );
}

/** ESLint's messages about the files under the repository's configuration (`file:line rule message`). */
export async function lintMessages(files: string[]): Promise<string[]> {
  const eslint = new ESLint({ cwd: repoRoot, ignore: false });
  const results = await eslint.lintFiles(files);
  return results.flatMap((r) => r.messages.map((m) => `${path.basename(r.filePath)}:${m.line} ${m.ruleId ?? ''} ${m.message}`));
}
