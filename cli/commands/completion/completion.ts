import { Command } from 'commander';
import { printsNoData } from '../../command-kit.ts';
import type { CliDeps } from '../../deps.ts';
import { choiceOf } from '../../options.ts';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** One command of the tree: its words after `svc` ("vault backup"), subcommands and long flags. */
export interface CompletionNode {
  readonly path: string;
  readonly subcommands: readonly string[];
  readonly flags: readonly string[];
}

/** Every command of the tree, parents before children; hidden ones (and `help`) left out. */
export function completionNodes(root: Command): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string): void => {
    const visible = command.commands.filter((sub) => !(sub as unknown as { _hidden?: boolean })._hidden);
    nodes.push({
      path,
      subcommands: visible.map((sub) => sub.name()),
      flags: [...command.options.map((option) => option.long ?? ''), '--help'].filter((flag) => flag !== ''),
    });
    for (const sub of visible) visit(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  };
  visit(root, '');
  return nodes;
}

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Bash (and zsh through bashcompinit): the words so far that name commands pick the node, then the
 * node's subcommands and flags are offered. Words that are not a known command path (flag values,
 * arguments) are skipped, so `svc token get --tenant acme <TAB>` still completes `token get`.
 */
function bashScript(nodes: readonly CompletionNode[]): string {
  const paths = nodes.filter((n) => n.path !== '').map((n) => quote(n.path));
  const cases = nodes
    .map((n) => `    ${quote(n.path)}) words=${quote([...n.subcommands, ...n.flags].join(' '))} ;;`)
    .join('\n');
  return `# svc completion for bash. Load it with:  source <(svc completion bash)
_svc() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next w i words=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ $w == -* ]] && continue
    next="\${path:+$path }$w"
    case "$next" in
      ${paths.join('|')}) path="$next" ;;
    esac
  done
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _svc svc
`;
}

function zshScript(nodes: readonly CompletionNode[]): string {
  return `# svc completion for zsh. Load it with:  source <(svc completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(nodes).replace(/^# .*\n/, '')}`;
}

/** Fish: each node's subcommands once its path is on the line, its flags after that. */
function fishScript(nodes: readonly CompletionNode[]): string {
  const lines = [
    '# svc completion for fish. Load it with:  svc completion fish | source',
    'complete -c svc -f',
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
    for (const flag of node.flags) lines.push(`complete -c svc ${when} -l ${flag.replace(/^--/, '')}`);
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
  zsh:   source <(svc completion zsh)         (~/.zshrc)
  fish:  svc completion fish | source         (~/.config/fish/config.fish)`;

export function newCompletionCommand(deps: CliDeps): Command {
  const command = new Command('completion')
    .description('Print a shell completion script (bash, zsh or fish)')
    .argument('<shell>', `one of ${SHELLS.join(', ')}`, choiceOf(SHELLS));
  command.addHelpText('after', HELP_AFTER);
  // The output is a shell script, not data: no --json.
  printsNoData(command);
  return command.action(async (shell: Shell) => {
    let root: Command = command;
    while (root.parent !== null) root = root.parent;
    deps.stdout.write(completionScript(shell, root));
  });
}
