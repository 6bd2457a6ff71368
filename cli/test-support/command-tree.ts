import type { Command } from 'commander';

/** Every command of a tree, parents first, with its words after `svc` ('' for the root). */
export function everyCommand(root: Command): { path: string; words: string[]; command: Command }[] {
  const found: { path: string; words: string[]; command: Command }[] = [];
  const visit = (command: Command, words: string[]) => {
    found.push({ path: words.join(' '), words, command });
    for (const sub of command.commands) visit(sub, [...words, sub.name()]);
  };
  visit(root, []);
  return found;
}
