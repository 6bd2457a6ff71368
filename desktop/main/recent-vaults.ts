import { readFile } from 'node:fs/promises';
import { writeJsonPrivately } from './remembered-keys.ts';

/** How many vaults the start screen lists. */
export const RECENT_VAULTS_MAX = 10;

export interface RecentVault {
  readonly path: string;
  readonly openedAt: string;
}

/** The start screen's "open recent" list: paths only, most recent first. */
export class RecentVaults {
  constructor(private readonly file: string) {}

  async list(): Promise<RecentVault[]> {
    try {
      const parsed: unknown = JSON.parse(await readFile(this.file, 'utf8'));
      if (!Array.isArray(parsed)) return [];
      return parsed
        .filter(
          (entry): entry is RecentVault =>
            typeof entry === 'object' &&
            entry !== null &&
            typeof (entry as RecentVault).path === 'string' &&
            typeof (entry as RecentVault).openedAt === 'string',
        )
        .slice(0, RECENT_VAULTS_MAX);
    } catch {
      return [];
    }
  }

  async add(path: string, at: Date): Promise<void> {
    const rest = (await this.list()).filter((entry) => entry.path !== path);
    const next = [{ path, openedAt: at.toISOString() }, ...rest].slice(0, RECENT_VAULTS_MAX);
    await writeJsonPrivately(this.file, next);
  }
}
