import { Command } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import { readExistingPassword, readNewPassword } from '../../prompts/ask.ts';
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
import { secretFromLink } from './format.ts';

export interface InvitationAcceptOptions extends VaultCommandOptions {
  /** The link or the bare secret, as given (parsed when run, so a bad one is one clear line). */
  readonly link: string;
  readonly firstName: string | undefined;
  readonly lastName: string | undefined;
  readonly passwordStdin: boolean;
}

type RawAccept = RawOptions & { firstName?: string; lastName?: string; passwordStdin?: boolean };

const HELP_AFTER = `
A new user gives a first and last name and chooses a password (typed twice); someone who already
has an account leaves the first name empty at the prompt (or passes no names) and gives their
password. Scripts pass --password-stdin (and the names for a new user).`;

export function newInvitationAcceptCommand(
  deps: CliDeps,
  run: Runner<InvitationAcceptOptions> = (o) => runInvitationAccept(deps, o),
): Command {
  const command = new Command('accept')
    .description('Accept an invitation: become an ADMIN member of the inviting tenant')
    .argument('<link-or-secret>', 'the link from the invitation mail, or just its token')
    .option('--first-name <name>', 'first name (a new user; asked on a terminal)')
    .option('--last-name <name>', 'last name (a new user; asked on a terminal)')
    .option('--password-stdin', 'read the password from standard input (else a hidden prompt)');
  addVaultOptions(command, deps);
  command.addHelpText('after', HELP_AFTER);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawAccept>();
    await run({
      ...vaultOptionsFrom(raw),
      link: String(args[0]),
      firstName: raw.firstName,
      lastName: raw.lastName,
      passwordStdin: raw.passwordStdin === true,
    });
  });
}

interface Answers {
  readonly first_name?: string;
  readonly last_name?: string;
  readonly password: string;
}

/** Who is accepting: a new user (names, new password) or an existing one (their password). */
async function askAnswers(deps: CliDeps, options: InvitationAcceptOptions): Promise<Answers> {
  let firstName = options.firstName?.trim();
  let lastName = options.lastName?.trim();
  const named = firstName !== undefined || lastName !== undefined;
  if (!named && deps.isTTY) {
    firstName = (
      await deps.prompter.input({ message: 'First name (leave empty if you already have an account):' })
    ).trim();
    if (firstName === '') firstName = undefined;
  }
  if (firstName === undefined && lastName === undefined) {
    return {
      password: await readExistingPassword(deps, {
        fromStdin: options.passwordStdin,
        stdinFlag: '--password-stdin',
        message: 'Password of your account:',
      }),
    };
  }
  if (lastName === undefined && deps.isTTY)
    lastName = (await deps.prompter.input({ message: 'Last name:' })).trim();
  if (firstName === undefined && deps.isTTY)
    firstName = (await deps.prompter.input({ message: 'First name:' })).trim();
  const password = await readNewPassword(deps, {
    who: 'your new account',
    fromStdin: options.passwordStdin,
    stdinFlag: '--password-stdin',
    optional: false,
  });
  if (password === undefined) throw new VaultError('USAGE', 'a password is required');
  return {
    ...(firstName === undefined || firstName === '' ? {} : { first_name: firstName }),
    ...(lastName === undefined || lastName === '' ? {} : { last_name: lastName }),
    password,
  };
}

export async function runInvitationAccept(deps: CliDeps, options: InvitationAcceptOptions): Promise<void> {
  const token = secretFromLink(options.link);
  const resolved = await loadConfig(deps, options.config);
  const { member } = await withServices(deps, resolved, options.key, async (services) => {
    const answers = await askAnswers(deps, options);
    return services.invitations.accept({ token, ...answers });
  });
  if (options.json) {
    writeJson(deps.stdout, { member });
    return;
  }
  writeLine(
    deps.stdout,
    `Accepted: ${member.user.email} is now a member (${member.role}) of tenant ${member.tenant_id}`,
  );
  writeLine(deps.stdout, `Member: ${member.id}`);
}
