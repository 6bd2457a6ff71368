import type { Option } from 'commander';

/** What shell completion offers for an option's value: fixed values, or the ids of a resource. */
export type CompletionValues = readonly string[] | { readonly ids: IdKind };

/** Resources whose ids (or, for tenants, names) `svc completion ids <kind>` lists. */
export const ID_KINDS = [
  'tenant',
  'application',
  'token',
  'proxy',
  'formula',
  'reactor',
  'invitation',
  'member',
] as const;
export type IdKind = (typeof ID_KINDS)[number];

const COMPLETIONS = new WeakMap<Option, CompletionValues>();

/** Registers what completion offers for `option` (cli/commands/completion/completion.ts reads it). */
export function completesWith(option: Option, values: CompletionValues): Option {
  COMPLETIONS.set(option, values);
  return option;
}

export function completionOf(option: Option): CompletionValues | undefined {
  return COMPLETIONS.get(option);
}
