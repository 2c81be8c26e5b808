// One formatting pass for every emitted TypeScript/JavaScript file, so generated code reads the
// same whoever emits it and re-running codegen gives byte-identical output.
import { Project, ts } from 'ts-morph';
import { GENERATED_HEADER } from './emitter.js';

const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: true } });

/** Formats source text (2-space indent, semicolons) and heads it with the generated-file comment. */
export function formatSource(fileName: string, text: string): string {
  const file = project.createSourceFile(`/format/${fileName}`, `// ${GENERATED_HEADER}\n${text}`, { overwrite: true });
  file.formatText({
    indentSize: 2,
    tabSize: 2,
    convertTabsToSpaces: true,
    semicolons: ts.SemicolonPreference.Insert,
    insertSpaceAfterOpeningAndBeforeClosingNonemptyBraces: true,
  });
  const formatted = file.getFullText();
  project.removeSourceFile(file);
  return formatted.endsWith('\n') ? formatted : `${formatted}\n`;
}
