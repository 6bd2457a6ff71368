/**
 * Database URLs as they may be shown: in config output, errors and status. Kept apart from the
 * driver so that printing a setting never loads it.
 */

/** `url` without its password (`***` instead), or a placeholder when it does not parse. */
export function redactedDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(invalid URL)';
  }
}
