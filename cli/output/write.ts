import pc from 'picocolors';
import type { CliDeps, Writer } from '../runtime/deps.ts';

/** Writes one line (the newline is ours, so callers never forget it or double it). */
export function writeLine(out: Writer, text = ''): void {
  out.write(`${text}\n`);
}

/**
 * The CLI's own report objects (vault status, init, start, config…) with snake_case keys, the casing
 * of the API and of every other `--json` output. Only for objects the CLI builds: keys inside
 * domain data (token metadata, say) are the user's and are never renamed.
 */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
      snakeCaseKeys(inner),
    ]),
  );
}

/** Pretty JSON on a terminal, one compact line in a pipe (easier to stream and grep). */
export function writeJson(out: Writer, value: unknown): void {
  writeLine(out, out.isTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value));
}

/** Colour only for a person at a terminal, and never when NO_COLOR is set (no-color.org). */
export function colours(deps: CliDeps, out: Writer = deps.stdout): ReturnType<typeof pc.createColors> {
  const noColor = deps.env.NO_COLOR !== undefined && deps.env.NO_COLOR !== '';
  return pc.createColors(out.isTTY && !noColor);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
