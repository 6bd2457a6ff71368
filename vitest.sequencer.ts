import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take most of a run, longest first. The workers take files in the order given, so
 * a long file that starts last keeps one worker busy while the others sit idle; started first, it
 * overlaps with the many short ones. Vitest's own order relies on timings cached from an earlier
 * run on the same checkout, which a clean clone (CI) does not have. Keys are `project:path`.
 */
export const LONGEST_FIRST: readonly string[] = [];

/**
 * Runs LONGEST_FIRST in its order, then every other file in Vitest's own order (cached timings
 * when there are some, larger files first otherwise). Every project's files share the one pool.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const path = spec.moduleId.slice(spec.project.config.root.length + 1);
      const index = LONGEST_FIRST.indexOf(`${spec.project.name}:${path}`);
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    return ordered
      .map((spec, position) => ({ spec, position, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.position - b.position)
      .map(({ spec }) => spec);
  }
}
