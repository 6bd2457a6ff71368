import { Command } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import { newAppCommand } from './commands/app/app.ts';
import { newCompletionCommand } from './commands/completion/completion.ts';
import { newProxyCommand } from './commands/proxy/proxy.ts';
import { newConfigCommand } from './commands/config/config.ts';
import { newStatusCommand } from './commands/status/status.ts';
import { leadingConnectionFlags } from './connection-flags.ts';
import { newDetokenizeCommand } from './commands/detokenize/detokenize.ts';
import { newFormulaCommand } from './commands/formula/formula.ts';
import { newInitCommand } from './commands/init/init.ts';
import { newInvitationCommand } from './commands/invitation/invitation.ts';
import { newLogsCommand } from './commands/logs/logs.ts';
import { newMemberCommand } from './commands/member/member.ts';
import { newReactorCommand } from './commands/reactor/reactor.ts';
import { newServeCommand } from './commands/serve/serve.ts';
import { newStartCommand } from './commands/start/start.ts';
import { newTenantCommand } from './commands/tenant/tenant.ts';
import { newTokenCommand } from './commands/token/token.ts';
import { newTokenizeCommand } from './commands/tokenize/tokenize.ts';
import { newUserCommand } from './commands/user/user.ts';
import { newVaultCommand } from './commands/vault/vault.ts';
import type { CliDeps } from './deps.ts';
import { EXIT, reportError } from './errors.ts';

/**
 * Commander settings are not inherited by commands built separately and attached with addCommand, so
 * they are applied to the whole tree here: throw instead of exiting (we choose the exit code), write
 * through the injected streams, and leave error reporting to `reportError` (one line, our format).
 */
export function configureTree(command: Command, deps: CliDeps): void {
  command.exitOverride();
  command.configureOutput({
    writeOut: (text) => deps.stdout.write(text),
    writeErr: (text) => deps.stderr.write(text),
    outputError: () => undefined,
  });
  command.showSuggestionAfterError(true);
  for (const sub of command.commands) configureTree(sub, deps);
}

export function buildProgram(deps: CliDeps): Command {
  const program = new Command('svc')
    .description('svc vault: a self-hosted token vault')
    .version(pkg.version, '-v, --version', 'print the version')
    // Options after a verb belong to the verb: `svc logs verify --json` is verify's --json, not the
    // one of `svc logs` (which runs on its own too). Needs the root and `logs` to say so.
    .enablePositionalOptions()
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 error, 2 usage or cancelled, 4 authentication or vault locked.\n' +
        'Settings: flags > environment (SVC_*) > config file (<home>/config.json) > defaults; see `svc config`.',
    )
    .addCommand(newStartCommand(deps))
    .addCommand(newServeCommand(deps))
    .addCommand(newInitCommand(deps))
    .addCommand(newConfigCommand(deps))
    .addCommand(newStatusCommand(deps))
    .addCommand(newVaultCommand(deps))
    .addCommand(newTenantCommand(deps))
    .addCommand(newMemberCommand(deps))
    .addCommand(newInvitationCommand(deps))
    .addCommand(newAppCommand(deps))
    .addCommand(newProxyCommand(deps))
    .addCommand(newTokenizeCommand(deps))
    .addCommand(newTokenCommand(deps))
    .addCommand(newDetokenizeCommand(deps))
    .addCommand(newFormulaCommand(deps))
    .addCommand(newReactorCommand(deps))
    .addCommand(newUserCommand(deps))
    .addCommand(newLogsCommand(deps))
    .addCommand(newCompletionCommand(deps));
  configureTree(program, deps);
  return program;
}

/** Runs one invocation and returns its exit code; never throws, never calls process.exit. */
export async function run(given: readonly string[], givenDeps: CliDeps): Promise<number> {
  const leading = leadingConnectionFlags(given);
  const argv = leading.argv;
  const deps =
    Object.keys(leading.env).length === 0
      ? givenDeps
      : { ...givenDeps, env: { ...givenDeps.env, ...leading.env } };
  const program = buildProgram(deps);
  if (argv.length === 0) {
    // Bare `svc` is a request for orientation, not a mistake.
    deps.stdout.write(program.helpInformation());
    return EXIT.ok;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return reportError(deps, error);
  }
}

/** Entry point of the `svc` binary (cli/bin/svc.js). */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const { createDefaultDeps } = await import('./default-deps.ts');
  return run(argv, createDefaultDeps());
}
