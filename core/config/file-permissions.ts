import { stat } from 'node:fs/promises';
import { VaultError } from '../errors/catalogue.ts';
import type { ResolvedConfig } from './resolve.ts';

/** Group and other permission bits: a file of secrets should have none of them. */
const GROUP_OTHER = 0o077;

export interface PermissionFinding {
  readonly path: string;
  /** What the file is, for the message. */
  readonly what: 'home folder' | 'key file' | 'config file (it holds a password)';
  /** The permission bits, e.g. 0o644. */
  readonly mode: number;
}

async function modeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mode & 0o777;
  } catch {
    return null;
  }
}

function holdsSecret(resolved: ResolvedConfig): boolean {
  // The SMTP URL and the database URL may each carry a password.
  const { smtpUrl, databaseUrl } = resolved.config;
  const fromFile = [
    resolved.sources.smtpUrl === 'file' ? smtpUrl : null,
    resolved.sources.databaseUrl === 'file' ? databaseUrl : null,
  ];
  return fromFile.some((url) => {
    if (url === null) return false;
    try {
      return new URL(url).password !== '';
    } catch {
      return false;
    }
  });
}

/**
 * Files of secrets that others on this machine may read: the home folder (it holds the vault, the
 * key file and the outbox of invitation links), the key file in use, and the config file when it
 * carries the SMTP or database password. POSIX modes only; on Windows, ACLs decide and nothing is reported.
 */
export async function exposedSecretFiles(
  resolved: ResolvedConfig,
  keyFile: string | null,
  platform: NodeJS.Platform = process.platform,
): Promise<PermissionFinding[]> {
  if (platform === 'win32') return [];
  const candidates: { path: string; what: PermissionFinding['what'] }[] = [
    { path: resolved.config.home, what: 'home folder' },
  ];
  if (keyFile !== null) candidates.push({ path: keyFile, what: 'key file' });
  if (resolved.configFile.loaded && holdsSecret(resolved))
    candidates.push({ path: resolved.configFile.path, what: 'config file (it holds a password)' });
  const findings: PermissionFinding[] = [];
  for (const candidate of candidates) {
    const mode = await modeOf(candidate.path);
    if (mode !== null && (mode & GROUP_OTHER) !== 0) findings.push({ ...candidate, mode });
  }
  return findings;
}

export function describeFinding(finding: PermissionFinding): string {
  const fix = finding.what === 'home folder' ? 'chmod 700' : 'chmod 600';
  return `${finding.what} ${finding.path} is accessible by other users (mode ${finding.mode.toString(8).padStart(3, '0')}); run: ${fix} '${finding.path}'`;
}

/**
 * The rule: a key file others can read is refused (whoever reads it can decrypt the vault), unless
 * `allowInsecurePermissions` is set; every other finding is a warning. Returns the warnings.
 */
export function enforcePermissions(findings: readonly PermissionFinding[], allowInsecure: boolean): string[] {
  const key = findings.find((f) => f.what === 'key file');
  if (key && !allowInsecure)
    throw new VaultError(
      'CONFIG_INVALID',
      `${describeFinding(key)}. To open the vault anyway pass --allow-insecure-permissions (or set SVC_ALLOW_INSECURE_PERMISSIONS=1).`,
    );
  return findings.map(describeFinding);
}
