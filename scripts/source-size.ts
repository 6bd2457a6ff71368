/**
 * Measures the production source files of the given folders against the size limits: no file over
 * MAX_FILE_LINES lines and no function over MAX_FUNCTION_LINES. A function is any function with a
 * body (declaration, expression, arrow, method, constructor, accessor), nested ones included, so a
 * service written as one closure is measured whole, and so is each operation inside it. Tests
 * (`*.test.ts(x)`), test-support folders, type declarations and build output are not production
 * source and are not measured.
 *
 * Run by scripts/source-size.test.ts; `node --import tsx scripts/source-size.ts [folder…]` prints
 * every file over a limit and exits 1 when there is one.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_FILE_LINES = 500;
export const MAX_FUNCTION_LINES = 150;
export const MEASURED_FOLDERS = ['core', 'server', 'cli', 'desktop'] as const;

const NOT_SOURCE_FOLDERS = new Set(['node_modules', 'dist', 'test-support']);

export interface LongFunction {
  readonly name: string;
  /** 1-based line where it starts. */
  readonly line: number;
  readonly lines: number;
}

/** A file over a limit: its length, and each of its functions over the function limit. */
export interface OversizedFile {
  /** Relative to the root, `/` separators. */
  readonly file: string;
  readonly lines: number;
  readonly functions: readonly LongFunction[];
}

function isProductionSource(path: string): boolean {
  if (!/\.(ts|tsx|mts|js|mjs)$/.test(path) || /\.d\.ts$/.test(path)) return false;
  if (/\.test\.(ts|tsx)$/.test(path)) return false;
  return !path.split(sep).some((part) => NOT_SOURCE_FOLDERS.has(part));
}

function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function functionName(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (node.name !== undefined) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  // `const x = () => …` and `x: () => …` are named by what holds them.
  const holder = node.parent;
  if ((ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder)) && holder.name !== undefined) {
    return holder.name.getText(source);
  }
  return '(anonymous)';
}

/** The functions of `text` longer than `limit` lines, outermost first. */
export function longFunctions(fileName: string, text: string, limit = MAX_FUNCTION_LINES): LongFunction[] {
  const kind = fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > limit) found.push({ name: functionName(node, source), line: first + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every production source file under `folders` (relative to `root`) over a limit, sorted by path. */
export function oversizedSources(
  root: string,
  folders: readonly string[] = MEASURED_FOLDERS,
): OversizedFile[] {
  const base = resolve(root);
  const found: OversizedFile[] = [];
  for (const folder of folders) {
    for (const path of readdirSync(join(base, folder), { recursive: true, encoding: 'utf8' })) {
      const full = join(base, folder, path);
      if (!isProductionSource(full)) continue;
      const text = readFileSync(full, 'utf8');
      const lines = lineCount(text);
      const functions = longFunctions(full, text);
      if (lines > MAX_FILE_LINES || functions.length > 0) {
        found.push({ file: relative(base, full).split(sep).join('/'), lines, functions });
      }
    }
  }
  return found.sort((a, b) => a.file.localeCompare(b.file));
}

export function describeOversized(entry: OversizedFile): string {
  const parts = entry.lines > MAX_FILE_LINES ? [`${entry.lines} lines (limit ${MAX_FILE_LINES})`] : [];
  for (const f of entry.functions) {
    parts.push(`${f.name} at line ${f.line}: ${f.lines} lines (limit ${MAX_FUNCTION_LINES})`);
  }
  return `${entry.file}: ${parts.join('; ')}`;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const folders = process.argv.length > 2 ? process.argv.slice(2) : MEASURED_FOLDERS;
  const found = oversizedSources(root, folders);
  for (const entry of found) console.log(describeOversized(entry));
  if (found.length > 0) process.exitCode = 1;
  else console.log('every file within the limits');
}
