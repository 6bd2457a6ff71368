import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { brokenDocLinks, headingAnchors, linkTargets } from './doc-links.ts';

const REPOSITORY = join(dirname(fileURLToPath(import.meta.url)), '..');

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A repository of the given Markdown files (paths relative to its root). */
async function repository(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'svc-doc-links-'));
  folders.push(root);
  await mkdir(join(root, 'docs'), { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe('the documentation links', () => {
  it('point to files and headings that exist, in README.md and every page under docs/', () => {
    expect(brokenDocLinks(REPOSITORY)).toEqual([]);
  });
});

describe('the link check', () => {
  it('reports a missing file, a missing heading and a link leaving the repository, with their lines', async () => {
    const root = await repository({
      'README.md': 'See [storage](docs/storage.md#journal) and [gone](docs/gone.md).\n',
      'docs/storage.md': '# Storage\n\n## Snapshots\n\n[up](../../elsewhere.md)\n',
    });
    expect(brokenDocLinks(root)).toEqual([
      {
        file: 'README.md',
        line: 1,
        target: 'docs/storage.md#journal',
        problem: 'no heading with the anchor #journal in docs/storage.md',
      },
      { file: 'README.md', line: 1, target: 'docs/gone.md', problem: 'no such file: docs/gone.md' },
      {
        file: 'docs/storage.md',
        line: 5,
        target: '../../elsewhere.md',
        problem: 'points outside the repository',
      },
    ]);
  });

  it('accepts headings, same-page anchors, folders, images and other sites', async () => {
    const root = await repository({
      'README.md': '![shot](docs/shot.png) [records](docs/decisions/) [site](https://example.com/x#y)\n',
      'docs/shot.png': 'png',
      'docs/decisions/0001-x.md': '# 0001 X\n\n[back](../a.md#keys-and-the-barrier-coreVault)\n',
      'docs/a.md':
        '# A\n\n## Keys and **the** `barrier` (core/vault)\n\n[here](#a) [mail](mailto:x@example.com)\n',
    });
    const broken = brokenDocLinks(root);
    // Anchors are lower case, as GitHub makes them: the mixed-case fragment is the one problem.
    expect(broken.map((b) => b.target)).toEqual(['../a.md#keys-and-the-barrier-coreVault']);
  });

  it('slugs headings as GitHub does, numbering repeats', () => {
    const anchors = headingAnchors(
      [
        '# Actor ids (`created_by`, `modified_by`)',
        '## Destination policy (`core/outbound`)',
        '## Invocation: `POST /reactors/{id}/react`',
        '## [Linked](x.md) heading',
        '## Notes',
        '## Notes',
      ].join('\n'),
    );
    expect([...anchors]).toEqual([
      'actor-ids-created_by-modified_by',
      'destination-policy-coreoutbound',
      'invocation-post-reactorsidreact',
      'linked-heading',
      'notes',
      'notes-1',
    ]);
  });

  it('ignores links and headings inside code', () => {
    const text = [
      'A [real](a.md) link and `[code](b.md)` in code.',
      '```md',
      '# Not a heading',
      '[fenced](c.md)',
      '```',
      '[defined]: d.md',
    ].join('\n');
    expect(linkTargets(text)).toEqual([
      { line: 1, target: 'a.md' },
      { line: 6, target: 'd.md' },
    ]);
    expect([...headingAnchors(text)]).toEqual([]);
  });
});
