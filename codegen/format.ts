// One formatting pass for every emitted TypeScript/JavaScript file, so generated code reads the
// same whoever emits it and re-running codegen gives byte-identical output.
import { Project, ts } from 'ts-morph';
import { GENERATED_HEADER } from './emitter.js';

const MAX_INLINE_WIDTH = 100;

/** The layout of every emitted file: 2-space indent, semicolons, spaces inside braces. */
export const FORMAT_SETTINGS: ts.FormatCodeSettings = {
  indentSize: 2,
  tabSize: 2,
  convertTabsToSpaces: true,
  semicolons: ts.SemicolonPreference.Insert,
  insertSpaceAfterOpeningAndBeforeClosingNonemptyBraces: true,
};

const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: true } });

/** Formats source text (2-space indent, semicolons) and heads it with the generated-file comment. */
export function formatSource(fileName: string, text: string): string {
  const file = project.createSourceFile(`/format/${fileName}`, `// ${GENERATED_HEADER}\n${text}`, { overwrite: true });
  file.formatText(FORMAT_SETTINGS);
  const formatted = file.getFullText();
  project.removeSourceFile(file);
  return formatted.endsWith('\n') ? formatted : `${formatted}\n`;
}

/** A TypeScript literal of plain data: unquoted keys where possible, short values on one line. */
export function tsLiteral(value: unknown, indent: number): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const pad = '  '.repeat(indent + 1);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item) => tsLiteral(item, indent + 1));
    return fit(`[${items.join(', ')}]`, indent) ?? `[\n${items.map((i) => `${pad}${i},\n`).join('')}${'  '.repeat(indent)}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const members = entries.map(([k, v]) => `${key(k)}: ${tsLiteral(v, indent + 1)}`);
    return fit(`{ ${members.join(', ')} }`, indent) ?? `{\n${members.map((m) => `${pad}${m},\n`).join('')}${'  '.repeat(indent)}}`;
  }
  throw new Error(`cannot write ${typeof value} into model.ts`);
}

function fit(inline: string, indent: number): string | undefined {
  return !inline.includes('\n') && inline.length + indent * 2 <= MAX_INLINE_WIDTH ? inline : undefined;
}

function key(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : quote(name);
}

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}
