import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { VaultError } from '../errors/catalogue.ts';
import { isConfigKey, type SvcConfig } from './fields.ts';

/**
 * Sets settings in the config file (`svc tenant use` writes `tenant`): the other keys and their
 * values stay as they are. A missing file is created, private to its owner (it may later hold an SMTP
 * or database password); an existing one keeps its mode. The new text replaces the old in one
 * rename, so a reader never sees half a file. `null` removes a key.
 */
export async function writeConfigFileSettings(
  file: string,
  settings: { readonly [K in keyof SvcConfig]?: string | null },
): Promise<void> {
  let current: Record<string, unknown> = {};
  let mode = 0o600;
  try {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new VaultError('CONFIG_INVALID', `config file ${file}: expected a JSON object`);
    current = parsed as Record<string, unknown>;
    mode = (await stat(file)).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      if (error instanceof SyntaxError)
        throw new VaultError('CONFIG_INVALID', `config file ${file}: not valid JSON`, { cause: error });
      throw error;
    }
  }
  for (const [key, value] of Object.entries(settings)) {
    if (!isConfigKey(key)) throw new VaultError('INTERNAL', `not a setting: ${key}`);
    if (value === null) delete current[key];
    else current[key] = value;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(current, null, 2)}\n`, { mode });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
