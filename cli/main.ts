import { Command, Help } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import { VERBS, verbsNeeded, type Verb } from './program/command-index.ts';
import { leadingConnectionFlags } from './options/leading-flags.ts';
import type { CliDeps } from './runtime/deps.ts';
import { printsData } from './program/command-kit.ts';
import { destructiveAction, refuseUnconfirmed } from './program/confirmation.ts';
import { EXIT, reportError } from './runtime/errors.ts';
import { addJsonOption } from './options/json.ts';
import { capturingWriter, filterWithJq } from './output/jq.ts';

/**
 * Commander settings are not inherited by commands built separately and attached with addCommand, so
 * they are applied to the whole tree here: throw instead of exiting (we choose the exit code), write
 * through the injected streams, and leave error reporting to `reportError` (one line, our format).
 *
 * The rules every command follows are applied here too, so no command can forget one: every
 * command that runs and prints data takes `--json` and `--jq` (cli/program/command-kit.ts says which print
 * none), and a destructive verb without `--yes` off a terminal stops before it opens anything
 * (cli/program/confirmation.ts).
 */
export function configureTree(command: Command, deps: CliDeps): void {
  if (printsData(command) && !command.options.some((option) => option.long === '--json'))
    addJsonOption(command);
  if (destructiveAction(command) !== undefined) {
    command.hook('preAction', (_self, action) => refuseUnconfirmed(deps, action));
  }
  command.exitOverride();
  command.configureOutput({
    writeOut: (text) => deps.stdout.write(text),
    writeErr: (text) => deps.stderr.write(text),
    outputError: () => undefined,
  });
  command.showSuggestionAfterError(true);
  for (const sub of command.commands) configureTree(sub, deps);
}

/** A verb as the root help lists it, without loading its module. */
function placeholder(verb: Verb): Command {
  return new Command(verb.name).description(verb.description);
}

/**
 * The `svc` command tree. Verbs in `needed` are built in full (their modules imported); the others
 * are placeholders that only show in the root help (cli/program/command-index.ts), which keeps start-up fast.
 */
export async function buildProgram(
  deps: CliDeps,
  needed: 'all' | ReadonlySet<string> = 'all',
): Promise<Command> {
  const program = new Command('svc')
    .description('svc vault: a self-hosted token vault')
    .version(pkg.version, '-v, --version', 'print the version')
    // Options after a verb belong to the verb: `svc logs verify --json` is verify's --json, not the
    // one of `svc logs` (which runs on its own too). Needs the root and `logs` to say so.
    .enablePositionalOptions()
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 error, 2 usage or cancelled, 3 unavailable (a server or database cannot be reached; try again), 4 authentication or vault locked.\n' +
        'Settings: flags > environment (SVC_*) > config file (<home>/config.json) > defaults; see `svc config`.',
    )
    .hook('preAction', async (_root, action) => {
      const { applyDefaultTenant } = await import('./tenancy/default-tenant.ts');
      await applyDefaultTenant(action, deps);
    });
  const built = await Promise.all(
    VERBS.map(async (verb) =>
      needed === 'all' || needed.has(verb.name) ? (await verb.load())(deps) : placeholder(verb),
    ),
  );
  for (const command of built) program.addCommand(command);
  const terms = new Map(VERBS.map((verb) => [verb.name, verb.term]));
  program.configureHelp({
    subcommandTerm: (command) => terms.get(command.name()) ?? new Help().subcommandTerm(command),
  });
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
  const stdout = capturingWriter(deps.stdout);
  const program = await buildProgram({ ...deps, stdout }, verbsNeeded(argv));
  // `--jq`: the command writes its JSON as usual; the filter runs over it once the command is done.
  let jq: string | undefined;
  program.hook('preAction', (_root, action) => {
    const expression: unknown = action.getOptionValue('jq');
    if (typeof expression !== 'string') return;
    jq = expression;
    stdout.capture();
  });
  if (argv.length === 0) {
    // Bare `svc` is a request for orientation, not a mistake.
    deps.stdout.write(program.helpInformation());
    return EXIT.ok;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    const json = stdout.captured();
    if (jq !== undefined && json !== undefined && json.trim() !== '') {
      const filtered = await filterWithJq(json, jq);
      if (filtered !== '') deps.stdout.write(filtered.endsWith('\n') ? filtered : `${filtered}\n`);
    }
    return EXIT.ok;
  } catch (error) {
    return reportError(deps, error);
  }
}

/** Entry point of the `svc` binary (cli/bin/svc.js). */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const { createDefaultDeps } = await import('./runtime/default-deps.ts');
  return run(argv, createDefaultDeps());
}
