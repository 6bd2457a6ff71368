import { Command } from 'commander';
import { commandOf, type Runner } from '../../command-kit.ts';
import { loadConfig, withVault } from '../../context.ts';
import type { CliDeps } from '../../deps.ts';
import {
  addJsonOption,
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options.ts';
import { writeJson, writeLine } from '../../output.ts';

export interface AppRegenerateOptions extends VaultCommandOptions {
  readonly applicationId: string;
}

export function newAppRegenerateCommand(
  deps: CliDeps,
  run: Runner<AppRegenerateOptions> = (o) => runAppRegenerate(deps, o),
): Command {
  const command = new Command('regenerate')
    .description("Replace an application's API key; the old key stops working and the new one is shown once")
    .argument('<application-id>', "the application's id (see 'svc app list')");
  addVaultOptions(command, deps);
  addJsonOption(command);
  return command.action(async (...args: unknown[]) => {
    await run({ ...vaultOptionsFrom(commandOf(args).opts<RawOptions>()), applicationId: String(args[0]) });
  });
}

export async function runAppRegenerate(deps: CliDeps, options: AppRegenerateOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const { apiKey } = await withVault(deps, resolved, options.key, (vault) =>
    deps.tenancy.regenerateApplicationKey(vault, options.applicationId),
  );
  if (options.json) {
    writeJson(deps.stdout, { id: options.applicationId, apiKey });
    return;
  }
  writeLine(deps.stdout, `API key for ${options.applicationId} (shown once): ${apiKey}`);
}
