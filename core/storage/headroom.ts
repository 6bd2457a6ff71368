import { statfs } from 'node:fs/promises';
import { Type, type Static } from 'typebox';
import type { StorageLimits } from '../backends/embedded/space-guard.ts';

/**
 * How close the vault is to the limits at which the space guard (space-guard.ts) refuses writes,
 * as figures the operator can watch: the database's size against its limit, the disk's free space
 * against the reserve. Each gauge's `used` is the share of its room already taken, 1 where writes
 * are refused:
 * - the database: its size over its limit;
 * - the disk: what is taken of the space above the reserve, (total − free) / (total − reserve), so
 *   it reaches 1 when the free space falls to the reserve.
 *
 * The figures are sizes only: never a row, key or path inside the vault.
 */

/** A gauge at or past this share of its room warrants a warning (the server logs one). */
export const HEADROOM_WARN_AT = 0.8;

/** How often a serving vault looks at its headroom to warn. */
export const HEADROOM_CHECK_INTERVAL_MS = 60_000;

const NullableInteger = (description: string) =>
  Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description });

const Used = Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
  description: 'Share of the room already taken (1 where writes are refused); null when a figure is unknown.',
});

export const DatabaseHeadroomSchema = Type.Object({
  bytes: NullableInteger(
    'Size of the database; null when it cannot be known without opening the vault (an embedded vault no server holds).',
  ),
  limit_bytes: NullableInteger(
    'Writes are refused once the database is this large; null on PostgreSQL, where no such limit applies.',
  ),
  used: Used,
});

export const DiskHeadroomSchema = Type.Object({
  free_bytes: Type.Integer({ minimum: 0 }),
  total_bytes: Type.Integer({ minimum: 0 }),
  reserve_bytes: Type.Integer({
    minimum: 0,
    description: 'Writes are refused while the disk has less free space than this.',
  }),
  used: Used,
});

export const VaultHeadroomSchema = Type.Object({
  warn_at: Type.Number({ description: 'The share of a room at which the server logs a warning.' }),
  database: DatabaseHeadroomSchema,
  disk: Type.Union([DiskHeadroomSchema, Type.Null()], {
    description:
      "The disk holding the vault; null on PostgreSQL (the database server's disk) or when the file system cannot tell.",
  }),
});

export type DatabaseHeadroom = Static<typeof DatabaseHeadroomSchema>;
export type DiskHeadroom = Static<typeof DiskHeadroomSchema>;
export type VaultHeadroom = Static<typeof VaultHeadroomSchema>;

/** Free and total bytes of a file system, as a `statfs` reports them to an unprivileged writer. */
export interface DiskSpace {
  readonly freeBytes: number;
  readonly totalBytes: number;
}

/** The disk holding `dir`; null when the file system cannot tell. */
export async function readDiskSpace(dir: string): Promise<DiskSpace | null> {
  try {
    const s = await statfs(dir);
    return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
  } catch {
    return null;
  }
}

const share = (taken: number, room: number): number => (room > 0 ? Math.max(0, taken / room) : 1);

/**
 * The headroom from its figures. `databaseBytes` null: unknown; `limits` null: no limit applies
 * (PostgreSQL), and then no disk either.
 */
export function vaultHeadroom(figures: {
  readonly databaseBytes: number | null;
  readonly limits: StorageLimits | null;
  readonly disk: DiskSpace | null;
}): VaultHeadroom {
  const { databaseBytes, limits, disk } = figures;
  const limit = limits?.maxDatabaseBytes ?? null;
  const measurable = disk !== null && limits !== null && Number.isFinite(disk.freeBytes);
  return {
    warn_at: HEADROOM_WARN_AT,
    database: {
      bytes: databaseBytes,
      limit_bytes: limit,
      used: databaseBytes === null || limit === null ? null : share(databaseBytes, limit),
    },
    disk: measurable
      ? {
          free_bytes: disk.freeBytes,
          total_bytes: disk.totalBytes,
          reserve_bytes: limits.minFreeDiskBytes,
          used: share(disk.totalBytes - disk.freeBytes, disk.totalBytes - limits.minFreeDiskBytes),
        }
      : null,
  };
}

/** A gauge that has just passed the warning share. */
export type HeadroomWarning =
  | { readonly gauge: 'database'; readonly used: number; readonly bytes: number; readonly limitBytes: number }
  | {
      readonly gauge: 'disk';
      readonly used: number;
      readonly freeBytes: number;
      readonly reserveBytes: number;
    };

/**
 * Says when a gauge passes HEADROOM_WARN_AT: once as it crosses, then not again until it has fallen
 * back below and risen again, so a vault that stays near a limit is not warned about at every look.
 */
export class HeadroomWarnings {
  private readonly over = { database: false, disk: false };

  /** The gauges that crossed the warning share since the last look. */
  check(headroom: VaultHeadroom): HeadroomWarning[] {
    const warnings: HeadroomWarning[] = [];
    const { database, disk } = headroom;
    if (this.crossed('database', database.used)) {
      warnings.push({
        gauge: 'database',
        used: database.used ?? 0,
        bytes: database.bytes ?? 0,
        limitBytes: database.limit_bytes ?? 0,
      });
    }
    if (this.crossed('disk', disk?.used ?? null)) {
      warnings.push({
        gauge: 'disk',
        used: disk?.used ?? 0,
        freeBytes: disk?.free_bytes ?? 0,
        reserveBytes: disk?.reserve_bytes ?? 0,
      });
    }
    return warnings;
  }

  private crossed(gauge: 'database' | 'disk', used: number | null): boolean {
    const over = used !== null && used >= HEADROOM_WARN_AT;
    const crossed = over && !this.over[gauge];
    this.over[gauge] = over;
    return crossed;
  }
}

const MIB = 1024 * 1024;
const percent = (used: number): string => `${Math.round(used * 100)} %`;

/** The warning's one line: the figures and what happens at the limit. */
export function describeHeadroomWarning(warning: HeadroomWarning): string {
  if (warning.gauge === 'database') {
    return `The vault's database is at ${percent(warning.used)} of its limit (${Math.round(warning.bytes / MIB)} of ${Math.round(warning.limitBytes / MIB)} MiB); writes are refused at the limit.`;
  }
  return `The disk holding the vault is at ${percent(warning.used)} of the space it may fill (${Math.round(warning.freeBytes / MIB)} MiB free, ${Math.round(warning.reserveBytes / MIB)} MiB kept in reserve); writes are refused at the reserve.`;
}
