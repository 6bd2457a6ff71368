/**
 * Finds import circles among the source files of a folder (core/ by default): files that import one
 * another in a loop, directly or through others. Every import counts, `import type` and re-exports
 * included: a circle of types is still a circle a reader has to untie, and it is how catch-all type
 * files pull a module's dependencies back up. Imports are read with TypeScript's pre-processor and
 * resolved with its module resolution (the project's NodeNext settings). Tests (`*.test.ts`) are left
 * out; test-support files count.
 *
 * Run by scripts/import-cycles.test.ts; `node --import tsx scripts/import-cycles.ts [folder]` prints
 * each circle with the imports that close it and exits 1 when there is one.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** One import inside a circle: `from` imports `to` (paths relative to the repository, `/` separators). */
export interface CycleImport {
  readonly from: string;
  readonly to: string;
}

/** Files that reach one another through imports (a strongly connected component), with its imports. */
export interface ImportCycle {
  /** Sorted. */
  readonly files: readonly string[];
  readonly imports: readonly CycleImport[];
}

const COMPILER_OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowImportingTsExtensions: true,
  resolveJsonModule: true,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((path) => join(dir, path))
    .filter((path) => /\.(ts|tsx|mts)$/.test(path) && !/\.(test|d)\.tsx?$/.test(path))
    .filter((path) => !path.split(sep).includes('node_modules'));
}

/** Each source file under `folder` (relative to `root`) → the files under `folder` it imports. */
export function importGraph(root: string, folder: string): Map<string, string[]> {
  const base = resolve(root);
  const name = (path: string): string => relative(base, path).split(sep).join('/');
  const files = sourceFiles(join(base, folder));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const resolved = ts.resolveModuleName(fileName, file, COMPILER_OPTIONS, ts.sys).resolvedModule;
      const target = resolved === undefined ? undefined : resolve(resolved.resolvedFileName);
      if (target !== undefined && known.has(target)) targets.add(name(target));
    }
    graph.set(name(file), [...targets].sort());
  }
  return graph;
}

/** The circles of `graph` (Tarjan's strongly connected components of more than one file, or a file importing itself). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): ImportCycle[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: ImportCycle[] = [];
  let next = 0;

  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const members: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    const inside = new Set(members);
    const imports = members
      .sort()
      .flatMap((from) => (graph.get(from) ?? []).filter((to) => inside.has(to)).map((to) => ({ from, to })));
    if (members.length > 1 || imports.length > 0) cycles.push({ files: members, imports });
  };

  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => (a.files[0] ?? '').localeCompare(b.files[0] ?? ''));
}

export function describeCycle(cycle: ImportCycle): string {
  const lines = cycle.imports.map(({ from, to }) => `  ${from} -> ${to}`);
  return [`${cycle.files.length} file(s): ${cycle.files.join(', ')}`, ...lines].join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const cycles = importCycles(importGraph(root, process.argv[2] ?? 'core'));
  for (const cycle of cycles) console.log(describeCycle(cycle));
  if (cycles.length > 0) process.exitCode = 1;
  else console.log('no import circles');
}
