import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take most of a run, longest first (`project:path`). The workers take files in the
 * order given, so a long file that starts last keeps one worker busy while the others sit idle;
 * started first, it overlaps with the many short ones. Vitest's own order relies on timings cached
 * by an earlier run of the same checkout, which a clean clone (CI) does not have.
 */
export const LONGEST_FIRST: readonly string[] = [
  'embedded:core/storage/crash-consistency.test.ts',
  'embedded:e2e/console.test.ts',
  'embedded:e2e/console-tools.test.ts',
  'embedded:server/authorization-matrix.test.ts',
  'embedded:e2e/postgres-servers.test.ts',
  'embedded:core/storage/power-loss.test.ts',
  'embedded:server/routes/invitations.test.ts',
  'embedded:core/storage/vault-files.test.ts',
  'embedded:e2e/identity-and-access.test.ts',
  'embedded:e2e/tenant-administration.test.ts',
  'embedded:e2e/postgres-fault-load.test.ts',
];

/**
 * Runs LONGEST_FIRST in its order, then every other file in Vitest's own order (cached timings
 * when there are some, larger files first otherwise). The files of every project share the one
 * pool of workers.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const path = spec.moduleId.slice(spec.project.config.root.length + 1);
      const listed = LONGEST_FIRST.indexOf(`${spec.project.name}:${path}`);
      return listed === -1 ? LONGEST_FIRST.length : listed;
    };
    return ordered
      .map((spec, position) => ({ spec, position, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.position - b.position)
      .map(({ spec }) => spec);
  }
}
