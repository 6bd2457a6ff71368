import type { VaultHeadroom } from '../api/client';

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** Bytes as people read sizes: 1.5 GiB, 312.4 MiB. */
export function formatSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

/** One bar of the headroom: its share of the room taken (null: unknown) and its figures in words. */
export interface HeadroomBar {
  readonly label: string;
  readonly used: number | null;
  readonly figures: string;
  /** At or past the share the server warns at (the server says which share: `warn_at`). */
  readonly near: boolean;
}

/** The database against its limit and the disk against its reserve, as the overview shows them. */
export function headroomBars(headroom: VaultHeadroom): HeadroomBar[] {
  const { database, disk, warn_at: warnAt } = headroom;
  const near = (used: number | null) => used !== null && used >= warnAt;
  const size = database.bytes === null ? 'Size unknown' : formatSize(database.bytes);
  const bars: HeadroomBar[] = [
    {
      label: 'Database',
      used: database.used,
      near: near(database.used),
      figures:
        database.limit_bytes === null
          ? `${size}; no size limit on PostgreSQL`
          : `${size} of ${formatSize(database.limit_bytes)}`,
    },
  ];
  if (disk !== null) {
    bars.push({
      label: 'Disk',
      used: disk.used,
      near: near(disk.used),
      figures: `${formatSize(disk.free_bytes)} free of ${formatSize(disk.total_bytes)}; ${formatSize(disk.reserve_bytes)} kept in reserve`,
    });
  }
  return bars;
}

/** The bars with their figures; writes are refused where a bar is full. */
export function Headroom({ headroom }: { readonly headroom: VaultHeadroom }) {
  return (
    <dl className="facts headroom">
      {headroomBars(headroom).map((bar) => (
        <div key={bar.label}>
          <dt>{bar.label}</dt>
          <dd>
            {bar.used !== null && (
              <meter
                min={0}
                max={1}
                low={headroom.warn_at}
                high={headroom.warn_at}
                optimum={0}
                value={Math.min(bar.used, 1)}
                aria-label={`${bar.label}: share of the room taken before writes are refused`}
              />
            )}
            <span className={bar.near ? 'near' : undefined}>
              {bar.figures}
              {bar.used !== null && ` (${Math.round(bar.used * 100)} %${bar.near ? ', near the limit' : ''})`}
            </span>
          </dd>
        </div>
      ))}
    </dl>
  );
}
