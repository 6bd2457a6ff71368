import { readFile } from 'node:fs/promises';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take most of a run, longest first (paths from the repository's root). The workers take files in the
 * order given, so a long file that starts last keeps one worker busy while the others sit idle;
 * started first, it overlaps with the many short ones. Vitest's own order relies on timings cached
 * by an earlier run of the same checkout, which a clean clone (CI) does not have.
 */
export const LONGEST_FIRST: readonly string[] = [
  'e2e/console.test.ts',
  'core/backends/embedded/crash-consistency.test.ts',
  'e2e/postgres-servers.test.ts',
  'e2e/console-tools.test.ts',
  'server/authorization-matrix.test.ts',
  'e2e/tenant-administration.test.ts',
  'server/routes/reactors-fairness.test.ts',
  'cli/services/both-modes.test.ts',
  'e2e/console-session.test.ts',
  'e2e/cli-through-server.test.ts',
  'core/backends/embedded/vault-files.test.ts',
  'core/backends/embedded/power-loss.test.ts',
  'e2e/postgres-fault-load.test.ts',
  'e2e/identity-and-access.test.ts',
];

/** The environment a file asks for in a comment (`// @vitest-environment jsdom`), read as Vitest reads it. */
async function environmentOf(spec: TestSpecification): Promise<string> {
  const code = await readFile(spec.moduleId, 'utf8').catch(() => '');
  const asked = /@(?:vitest|jest)-environment\s+([\w-]+)\b/.exec(code)?.[1];
  return asked ?? spec.project.config.environment ?? 'node';
}

/**
 * Moves the files whose environment differs from their project's (the jsdom files of the console)
 * before every other file, together and in their order. A worker is kept for the next file in the
 * queue only when that file has the same project and environment, otherwise it is stopped and a new
 * one started. Scattered among the node files, each jsdom file cost a worker start, and so did the
 * node file after it; together at the end, they were the run's last seconds on one core (the node
 * workers done at 200.3 and 202.9 s, the jsdom files from 204.0 to 206.2: their workers start and
 * load jsdom first). At the start, their workers run while no node worker has loaded anything yet,
 * and the node files that follow balance the two workers' ends.
 */
export async function otherEnvironmentsFirst(
  files: readonly TestSpecification[],
): Promise<TestSpecification[]> {
  const environments = await Promise.all(files.map(environmentOf));
  const other = (i: number): boolean => environments[i] !== (files[i]!.project.config.environment ?? 'node');
  return [...files.filter((_, i) => other(i)), ...files.filter((_, i) => !other(i))];
}

/** The file a PostgreSQL rerun (`x.postgres.test.ts`, core/test-support/on-postgres.ts) runs again. */
const RERUN = /\.postgres\.test\.ts$/;

/**
 * Puts each PostgreSQL rerun right after the file it runs again (when that file is in the run too):
 * a rerun is one line, and ordered by its own size it came last of all, so the run ended with
 * forty files that mostly wait on the database, the cores half idle. Beside their files, they run
 * while the other worker has work of its own.
 */
export function rerunsAfterTheirFiles(files: readonly TestSpecification[]): TestSpecification[] {
  const reruns = new Map<string, TestSpecification>();
  for (const spec of files) {
    if (RERUN.test(spec.moduleId)) reruns.set(spec.moduleId.replace(RERUN, '.test.ts'), spec);
  }
  const placed = new Set<TestSpecification>();
  const out: TestSpecification[] = [];
  for (const spec of files) {
    if (RERUN.test(spec.moduleId)) continue;
    out.push(spec);
    const rerun = reruns.get(spec.moduleId);
    if (rerun !== undefined) {
      out.push(rerun);
      placed.add(rerun);
    }
  }
  // A rerun whose file is not in this run keeps its place among the rest.
  return [...out, ...files.filter((spec) => RERUN.test(spec.moduleId) && !placed.has(spec))];
}

/**
 * Runs LONGEST_FIRST in its order, then every other file in Vitest's own order (cached timings
 * when there are some, larger files first otherwise), each PostgreSQL rerun after its file
 * (`rerunsAfterTheirFiles`), the files of another environment first
 * (`otherEnvironmentsFirst`). The files of every project share the one pool of workers.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const path = spec.moduleId.slice(spec.project.config.root.length + 1);
      const listed = LONGEST_FIRST.indexOf(path);
      return listed === -1 ? LONGEST_FIRST.length : listed;
    };
    return otherEnvironmentsFirst(
      rerunsAfterTheirFiles(
        ordered
          .map((spec, position) => ({ spec, position, rank: rank(spec) }))
          .sort((a, b) => a.rank - b.rank || a.position - b.position)
          .map(({ spec }) => spec),
      ),
    );
  }
}
