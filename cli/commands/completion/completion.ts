import { Command } from 'commander';
import { printsNoData } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { completionOf, ID_KINDS, type IdKind } from '../../options/completion-values.ts';
import { choiceOf } from '../../options/values.ts';
import { listIds } from './ids.ts';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** One command of the tree: its words after `svc` ("vault backup"), subcommands and long flags. */
export interface CompletionNode {
  readonly path: string;
  readonly subcommands: readonly string[];
  readonly flags: readonly string[];
  /** Flags that take a value: their values when known, else nothing (the shell offers file names). */
  readonly values: Readonly<Record<string, readonly string[]>>;
  /** Flags whose value is the id (or name) of an existing resource. */
  readonly idFlags: Readonly<Record<string, IdKind>>;
  /** The resource the command's first argument names, when it names one. */
  readonly argument: IdKind | undefined;
}

/** Arguments that name an existing resource, by their name in the help (`<application-id>`). */
const ARGUMENT_KINDS: Readonly<Record<string, IdKind>> = {
  'application-id': 'application',
  'token-id': 'token',
  'parent-id': 'token',
  'child-id': 'token',
  'proxy-id': 'proxy',
  'formula-id': 'formula',
  'reactor-id': 'reactor',
  'invitation-id': 'invitation',
  'member-id': 'member',
  'id-or-name': 'tenant',
};

/** Every command of the tree, parents before children; hidden ones (and `help`) left out. */
export function completionNodes(root: Command): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string): void => {
    const visible = command.commands.filter((sub) => !(sub as unknown as { _hidden?: boolean })._hidden);
    const values: Record<string, readonly string[]> = {};
    const idFlags: Record<string, IdKind> = {};
    for (const option of command.options) {
      if (option.long === undefined || option.hidden || !(option.required || option.optional)) continue;
      const known = completionOf(option);
      if (known !== undefined && 'ids' in known) idFlags[option.long] = known.ids;
      else values[option.long] = known ?? [];
    }
    const [first] = command.registeredArguments;
    nodes.push({
      path,
      subcommands: visible.map((sub) => sub.name()),
      flags: [
        ...command.options.filter((option) => !option.hidden).map((option) => option.long ?? ''),
        '--help',
      ].filter((flag) => flag !== ''),
      values,
      idFlags,
      argument: first === undefined ? undefined : ARGUMENT_KINDS[first.name()],
    });
    for (const sub of visible) visit(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  };
  visit(root, '');
  return nodes;
}

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Bash (and zsh through bashcompinit): the words so far that name commands pick the node. After a
 * flag that takes a value, its values are offered (fixed ones, or the ids that
 * `svc completion ids <kind>` lists, in the tenant of a `--tenant` on the line); a flag of free
 * text offers nothing, so the shell completes file names. Otherwise the ids the command's argument
 * names, or the node's subcommands and flags. Words that are not a known command path (flag
 * values, arguments) are skipped, so `svc token get --tenant acme <TAB>` still completes `token get`.
 */
function bashScript(nodes: readonly CompletionNode[]): string {
  const paths = nodes.filter((n) => n.path !== '').map((n) => quote(n.path));
  const valueCases: string[] = [];
  for (const node of nodes) {
    for (const [flag, kind] of Object.entries(node.idFlags))
      valueCases.push(`    ${quote(`${node.path}|${flag}`)}) words="$(_svc_ids ${kind})" ;;`);
    for (const [flag, values] of Object.entries(node.values))
      valueCases.push(`    ${quote(`${node.path}|${flag}`)}) words=${quote(values.join(' '))} ;;`);
  }
  const argumentCases = nodes
    .filter((n) => n.argument !== undefined)
    .map((n) => `      ${quote(n.path)}) words="$(_svc_ids ${n.argument})" ;;`);
  const cases = nodes
    .map((n) => `    ${quote(n.path)}) words=${quote([...n.subcommands, ...n.flags].join(' '))} ;;`)
    .join('\n');
  return `# svc completion for bash. Load it with:  source <(svc completion bash)
_svc_ids() {
  svc completion ids "$1" \${tenant:+--tenant "$tenant"} 2>/dev/null </dev/null
}
_svc() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" next w i words="" tenant=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ $w == --tenant && $((i + 1)) -lt COMP_CWORD ]] && tenant="\${COMP_WORDS[i+1]}"
    [[ $w == -* ]] && continue
    next="\${path:+$path }$w"
    case "$next" in
      ${paths.join('|')}) path="$next" ;;
    esac
  done
  case "$path|$prev" in
${valueCases.join('\n')}
    *) prev="" ;;
  esac
  if [[ -z $prev && $cur != -* ]]; then
    case "$path" in
${argumentCases.join('\n')}
    esac
  fi
  if [[ -z $prev && -z $words ]]; then
    case "$path" in
${cases}
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _svc svc
`;
}

/**
 * Zsh runs the bash script through bashcompinit. It never runs compinit itself (that is the
 * user's ~/.zshrc's to do, once, and a second run is slow and resets their settings): without it,
 * the script says so instead.
 */
function zshScript(nodes: readonly CompletionNode[]): string {
  return `# svc completion for zsh. Load it after compinit in ~/.zshrc:  source <(svc completion zsh)
if (( ! $+functions[compdef] )); then
  print -u2 'svc completion: load this after compinit (autoload -Uz compinit && compinit)'
  return 1
fi
autoload -U +X bashcompinit && bashcompinit
${bashScript(nodes).replace(/^# .*\n/, '')}`;
}

/** Fish: each node's subcommands once its path is on the line, its flags (and their values) after that. */
function fishScript(nodes: readonly CompletionNode[]): string {
  const lines = [
    '# svc completion for fish. Load it with:  svc completion fish | source',
    'complete -c svc -f',
    'function __svc_ids',
    '  set -l words (commandline -opc)',
    '  set -l tenant',
    '  for i in (seq (count $words))',
    '    if test "$words[$i]" = --tenant; and test $i -lt (count $words)',
    '      set tenant --tenant $words[(math $i + 1)]',
    '    end',
    '  end',
    '  svc completion ids $argv[1] $tenant 2>/dev/null </dev/null',
    'end',
  ];
  for (const node of nodes) {
    const words = node.path === '' ? [] : node.path.split(' ');
    const seen = words.map((word) => `__fish_seen_subcommand_from ${word}`);
    const notDeeper =
      node.subcommands.length === 0 ? [] : [`not __fish_seen_subcommand_from ${node.subcommands.join(' ')}`];
    const condition = node.path === '' ? ['__fish_use_subcommand'] : [...seen, ...notDeeper];
    const when = `-n ${quote(condition.join('; and '))}`;
    if (node.subcommands.length > 0)
      lines.push(`complete -c svc ${when} -a ${quote(node.subcommands.join(' '))}`);
    if (node.argument !== undefined)
      lines.push(`complete -c svc ${when} -a ${quote(`(__svc_ids ${node.argument})`)}`);
    for (const flag of node.flags) {
      const name = flag.replace(/^--/, '');
      const kind = node.idFlags[flag];
      const values = node.values[flag];
      if (kind !== undefined)
        lines.push(`complete -c svc ${when} -l ${name} -xa ${quote(`(__svc_ids ${kind})`)}`);
      else if (values !== undefined && values.length > 0)
        lines.push(`complete -c svc ${when} -l ${name} -xa ${quote(values.join(' '))}`);
      else if (values !== undefined) lines.push(`complete -c svc ${when} -l ${name} -r -F`);
      else lines.push(`complete -c svc ${when} -l ${name}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: Shell, root: Command): string {
  const nodes = completionNodes(root);
  switch (shell) {
    case 'bash':
      return bashScript(nodes);
    case 'zsh':
      return zshScript(nodes);
    case 'fish':
      return fishScript(nodes);
  }
}

const HELP_AFTER = `
Load it in the current shell, or add the line to your shell's start-up file:
  bash:  source <(svc completion bash)        (~/.bashrc)
  zsh:   source <(svc completion zsh)         (~/.zshrc, after compinit)
  fish:  svc completion fish | source         (~/.config/fish/config.fish)

Besides commands and flags, it completes the values of flags such as --type and --permission and
the ids of existing tenants, applications, tokens, proxies, formulas, reactors, invitations and
members (listed by 'svc completion ids <kind>', where the vault opens without a prompt).`;

/** `svc completion ids <kind>`: what the scripts call for ids; hidden from help and completion. */
function newIdsCommand(deps: CliDeps): Command {
  const command = new Command('ids')
    .description('Print the ids of existing resources, one a line (for the completion scripts)')
    .argument('<kind>', `one of ${ID_KINDS.join(', ')}`, choiceOf(ID_KINDS))
    .option('--tenant <id-or-name>', 'the tenant to list in');
  printsNoData(command);
  return command.action(async (kind: IdKind, raw: { tenant?: string }) => {
    for (const id of await listIds(deps, kind, raw.tenant)) deps.stdout.write(`${id}\n`);
  });
}

export function newCompletionCommand(deps: CliDeps): Command {
  const command = new Command('completion')
    .description('Print a shell completion script (bash, zsh or fish)')
    .argument('<shell>', `one of ${SHELLS.join(', ')}`, choiceOf(SHELLS))
    .addCommand(newIdsCommand(deps), { hidden: true });
  command.addHelpText('after', HELP_AFTER);
  // The output is a shell script, not data: no --json.
  printsNoData(command);
  return command.action(async (shell: Shell) => {
    let root: Command = command;
    while (root.parent !== null) root = root.parent;
    deps.stdout.write(completionScript(shell, root));
  });
}
