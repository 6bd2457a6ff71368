import { Command, Option } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import { readNewPassword } from '../../prompts/ask.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';

export interface UserPasswdOptions extends VaultCommandOptions {
  readonly email: string;
  readonly passwordStdin: boolean;
}

export function newUserPasswdCommand(
  deps: CliDeps,
  run: Runner<UserPasswdOptions> = (o) => runUserPasswd(deps, o),
): Command {
  const command = new Command('passwd')
    .description("Set a user's password (typed twice at a hidden prompt, or read from standard input)")
    .argument('<email>', "the user's e-mail address")
    .addOption(
      new Option('--password-stdin', 'read the new password from standard input').conflicts(
        'passphraseStdin',
      ),
    );
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { passwordStdin?: boolean }>();
    await run({
      ...vaultOptionsFrom(raw),
      email: String(args[0]),
      passwordStdin: raw.passwordStdin === true,
    });
  });
}

export async function runUserPasswd(deps: CliDeps, options: UserPasswdOptions): Promise<void> {
  if (!options.passwordStdin && !deps.isTTY) {
    throw new VaultError('USAGE', 'a password needs a terminal to prompt; use --password-stdin');
  }
  const resolved = await loadConfig(deps, options.config);
  // Through the server that holds the vault (operator route), or in this process.
  const user = await withServices(deps, resolved, options.key, async (services) => {
    const found = await services.users.findByEmail(options.email);
    if (found === null) throw new VaultError('NOT_FOUND', `no user with the e-mail ${options.email}`);
    const password = await readNewPassword(deps, {
      who: found.email,
      fromStdin: options.passwordStdin,
      stdinFlag: '--password-stdin',
      optional: false,
    });
    // Not optional, so never undefined; the check keeps the types honest.
    if (password === undefined) throw new VaultError('USAGE', 'no password given');
    await services.users.setPassword(found.id, password);
    return found;
  });
  if (options.json) {
    writeJson(deps.stdout, { id: user.id, email: user.email, password_set: true });
    return;
  }
  writeLine(deps.stdout, `Password set for ${user.email}`);
}
