import { Option, type Command } from 'commander';
import { VaultError } from '../../core/errors/catalogue.ts';
import { commandOf } from './command-kit.ts';
import type { CliDeps } from '../runtime/deps.ts';

/**
 * How every destructive verb (one that loses data or a credential for good: delete, remove,
 * regenerate, prune, restore over a vault…) asks before it acts, all in one way:
 *
 * - `-y, --yes` skips the question; a script without it is refused with a usage error (exit 2);
 * - for a verb that always destroys, that refusal comes before anything is unlocked or read
 *   (a preAction hook, `refuseUnconfirmed`), so a script never half-runs;
 * - on a terminal the command asks a question naming what goes (`confirmDestructive`), and a "no"
 *   cancels with nothing changed (exit 2).
 *
 * `cli/program/confirmation.test.ts` walks the whole command tree: every verb marked here refuses without
 * `--yes` off a terminal, and the set of destructive verbs is the expected one.
 */

interface Destructive {
  /** Completes "… needs confirmation", e.g. "deleting a token". */
  readonly action: string;
  /**
   * `always`: the verb destroys whenever it runs. `when-replacing`: only when something is there
   * to replace (a restore onto an existing vault); the command asks only then.
   */
  readonly when: 'always' | 'when-replacing';
}

const DESTRUCTIVE = new WeakMap<Command, Destructive>();

/** Marks `command` destructive and gives it `-y, --yes` (help: "<verb> without asking …"). */
export function markDestructive(
  command: Command,
  action: string,
  options: { readonly verb?: string; readonly when?: Destructive['when'] } = {},
): Command {
  DESTRUCTIVE.set(command, { action, when: options.when ?? 'always' });
  return command.addOption(
    new Option('-y, --yes', `${options.verb ?? 'do it'} without asking (needed when not on a terminal)`),
  );
}

/** What a destructive command does ("deleting a token"), or undefined for any other command. */
export function destructiveAction(command: Command): Destructive | undefined {
  return DESTRUCTIVE.get(command);
}

/** Whether the action's command was given `--yes`. */
export function yesFrom(args: readonly unknown[]): boolean {
  return commandOf(args).opts<{ yes?: boolean }>().yes === true;
}

function unconfirmed(action: string): VaultError {
  return new VaultError('USAGE', `${action} needs confirmation; pass --yes`);
}

/**
 * The preAction check of a verb that always destroys: without `--yes` and without a terminal to
 * ask on, it stops before the command opens anything.
 */
export function refuseUnconfirmed(deps: CliDeps, command: Command): void {
  const destructive = DESTRUCTIVE.get(command);
  if (destructive === undefined || destructive.when !== 'always') return;
  if (command.opts<{ yes?: boolean }>().yes !== true && !deps.isTTY) throw unconfirmed(destructive.action);
}

export interface Confirmation {
  /**
   * Completes "… needs confirmation", e.g. "replacing the vault". Only a verb marked `when-replacing`
   * needs it: the others were refused by the preAction hook, which names the marked action.
   */
  readonly action?: string;
  /** The question, naming what goes: "Delete token t1? Its data is gone for good." */
  readonly question: string;
  /** Completes "cancelled; …", e.g. "the token was left as it is". */
  readonly unchanged: string;
}

/**
 * Asks the question on a terminal unless `--yes` was given; a "no" cancels with nothing changed.
 * Off a terminal without `--yes` it refuses (the preAction hook has usually refused already).
 */
export async function confirmDestructive(
  deps: CliDeps,
  yes: boolean,
  confirmation: Confirmation,
): Promise<void> {
  if (yes) return;
  if (!deps.isTTY) throw unconfirmed(confirmation.action ?? 'this command');
  if (!(await deps.prompter.confirm({ message: confirmation.question, default: false }))) {
    throw new VaultError('CANCELLED', `cancelled; ${confirmation.unchanged}`);
  }
}
