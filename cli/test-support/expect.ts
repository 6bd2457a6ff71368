import path from 'node:path';
import { expect } from 'vitest';
import { loadOrCreateKeyFile } from '../../core/config/index.ts';
import type { Services } from '../../core/services-contract.ts';
import { openVault } from '../../core/vault/index.ts';
import type { VaultHandle } from '../../core/vault/types.ts';
import { fastServices, type CliResult, type TempHome } from './harness.ts';

/** Assertions and vault access shared by the running-layer tests. */

/** Exit 0 and no error line (stderr may carry notes, e.g. "No applications yet"). */
export function expectOk(result: CliResult): void {
  expect({ code: result.code, errorLine: /^svc: /m.test(result.stderr) }, result.stderr).toEqual({
    code: 0,
    errorLine: false,
  });
}

export function expectOneLineError(result: CliResult, code: number, message?: RegExp): void {
  expect({ code: result.code, stdout: result.stdout }, result.stderr).toEqual({ code, stdout: '' });
  expect(result.stderr).toMatch(/^svc: [^\n]+\n$/);
  if (message) expect(result.stderr).toMatch(message);
}

export function expectNoSecret(result: CliResult, ...secrets: string[]): void {
  for (const secret of secrets) {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
  }
}

/** A key or password is printed exactly once, on stdout, and never on stderr. */
export function expectShownOnce(result: CliResult, secret: string): void {
  expect(result.stdout.split(secret).length - 1).toBe(1);
  expect(result.stderr).not.toContain(secret);
}

/**
 * Opens the vault of a temp home (its generated key file) the way another program would, for
 * checks the CLI does not offer (does the printed key authenticate?) and for tampering. The CLI
 * must not be running on it at the same time: the vault has one holder.
 */
export async function withHomeVault<T>(
  home: TempHome,
  fn: (vault: VaultHandle, services: Services) => Promise<T>,
): Promise<T> {
  const { key } = await loadOrCreateKeyFile(path.join(home.dir, 'vault.key'));
  const vault = await openVault({ path: path.join(home.dir, 'vault.svc'), key });
  try {
    return await fn(vault, await fastServices(vault));
  } finally {
    await vault.close();
  }
}

/** The items of a `list --json` output, checked to be in the API's page envelope. */
export function listData<T>(stdout: string): T[] {
  const parsed = JSON.parse(stdout) as { pagination?: unknown; data?: unknown };
  expect(Object.keys(parsed).sort()).toEqual(['data', 'pagination']);
  expect(Array.isArray(parsed.data)).toBe(true);
  return parsed.data as T[];
}
