/**
 * Checks the relative links of the documentation: every link in README.md and in the Markdown files
 * under docs/ must point to a file or folder of the repository, and a `#fragment` to a heading of the
 * Markdown file it names, slugged as GitHub renders headings (github-slugger). Links to other sites
 * are not fetched. Run by scripts/doc-links.test.ts; `node --import tsx scripts/doc-links.ts` prints
 * the broken links and exits 1 when there are any.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';

export interface BrokenLink {
  /** The file holding the link, relative to the root, with `/` separators. */
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly problem: string;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
/** `[text](target)` and `![alt](target)`, the text allowing one level of nested brackets. */
const INLINE_LINK = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
/** A reference definition, `[label]: target`. */
const REFERENCE_DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/;
const INLINE_CODE = /(`+)[^`]*?\1/g;
/** `https:`, `mailto:` and the like, or `//host`: not a file of this repository. */
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** The Markdown files whose links are checked: README.md and everything under docs/. */
export function documentationFiles(root: string): string[] {
  const files = ['README.md'];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files.sort();
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): Array<{ readonly line: number; readonly text: string }> {
  const lines: Array<{ line: number; text: string }> = [];
  let fence: string | null = null;
  text.split('\n').forEach((content, index) => {
    const opener = FENCE.exec(content)?.[1];
    if (fence !== null) {
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length) fence = null;
      return;
    }
    if (opener !== undefined) {
      fence = opener;
      return;
    }
    lines.push({ line: index + 1, text: content });
  });
  return lines;
}

/** The heading as GitHub reads it for its anchor: the text of links and code, without emphasis marks. */
function headingText(markdown: string): string {
  return markdown
    .replace(/!?\[((?:[^[\]]|\[[^\]]*\])*)\]\([^)]*\)/g, '$1')
    .replace(/`+/g, '')
    .replace(/\*\*|\*/g, '');
}

/** The anchors of a Markdown file's headings, as GitHub makes them (`-1`, `-2` for repeats). */
export function headingAnchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const { text } of proseLines(markdown)) {
    const heading = HEADING.exec(text)?.[2];
    if (heading !== undefined) anchors.add(slugger.slug(headingText(heading)));
  }
  return anchors;
}

/** Every link target written in a Markdown text, outside code, with its line. */
export function linkTargets(markdown: string): Array<{ readonly line: number; readonly target: string }> {
  const targets: Array<{ line: number; target: string }> = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(INLINE_CODE, '');
    for (const match of prose.matchAll(INLINE_LINK))
      targets.push({ line, target: unbracket(match[1] ?? '') });
    const definition = REFERENCE_DEFINITION.exec(prose)?.[1];
    if (definition !== undefined) targets.push({ line, target: unbracket(definition) });
  }
  return targets;
}

function unbracket(target: string): string {
  return target.startsWith('<') && target.endsWith('>') ? target.slice(1, -1) : target;
}

function kindOf(path: string): 'file' | 'folder' | 'none' {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'file';
  } catch {
    return 'none';
  }
}

/** The broken relative links of the repository's documentation under `root` (none: an empty list). */
export function brokenDocLinks(root: string): BrokenLink[] {
  const base = resolve(root);
  const anchorsByFile = new Map<string, Set<string>>();
  const anchorsOf = (path: string): Set<string> => {
    let anchors = anchorsByFile.get(path);
    if (anchors === undefined) {
      anchors = headingAnchors(readFileSync(path, 'utf8'));
      anchorsByFile.set(path, anchors);
    }
    return anchors;
  };
  const broken: BrokenLink[] = [];
  for (const file of documentationFiles(base)) {
    const source = join(base, file);
    for (const { line, target } of linkTargets(readFileSync(source, 'utf8'))) {
      if (EXTERNAL.test(target)) continue;
      const report = (problem: string) => broken.push({ file, line, target, problem });
      const hash = target.indexOf('#');
      const pathPart = hash === -1 ? target : target.slice(0, hash);
      const fragment = hash === -1 ? null : target.slice(hash + 1);
      let decodedPath: string;
      let anchor: string | null;
      try {
        decodedPath = decodeURIComponent(pathPart);
        anchor = fragment === null ? null : decodeURIComponent(fragment);
      } catch {
        report('is not a valid URL');
        continue;
      }
      const resolved = decodedPath === '' ? source : resolve(dirname(source), decodedPath);
      const inside = relative(base, resolved);
      if (inside.startsWith(`..${sep}`) || inside === '..') {
        report('points outside the repository');
        continue;
      }
      const kind = kindOf(resolved);
      if (kind === 'none') {
        report(`no such file: ${inside.split(sep).join('/')}`);
        continue;
      }
      if (anchor === null || anchor === '') continue;
      if (kind !== 'file' || !resolved.endsWith('.md')) {
        report('a #fragment on something other than a Markdown file');
        continue;
      }
      if (!anchorsOf(resolved).has(anchor)) {
        report(`no heading with the anchor #${anchor} in ${inside.split(sep).join('/')}`);
      }
    }
  }
  return broken;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const broken = brokenDocLinks(join(dirname(fileURLToPath(import.meta.url)), '..'));
  for (const { file, line, target, problem } of broken)
    console.error(`${file}:${line}: ${target}: ${problem}`);
  process.exitCode = broken.length === 0 ? 0 : 1;
}
