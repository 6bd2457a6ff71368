import { InvalidArgumentError, Option } from 'commander';
import { didYouMean } from '../../core/validation/suggest.ts';
import { completesWith } from './completion-values.ts';

/**
 * A flag that takes one of `values`, in any letter case (`--status PENDING` is `pending`); anything
 * else is a usage error that lists the values.
 */
export function choiceOf<T extends string>(values: readonly T[]): (text: string) => T {
  return (text) => {
    const wanted = text.trim().toLowerCase();
    const found = values.find((value) => value.toLowerCase() === wanted);
    if (found === undefined) {
      const near = didYouMean(text, values);
      throw new InvalidArgumentError(
        `Allowed choices are ${values.join(', ')}.${near === undefined ? '' : ` Did you mean ${near}?`}`,
      );
    }
    return found;
  };
}

/** An option whose value is one of `values` (any letter case); the help lists them. */
export function choiceOption<T extends string>(
  flags: string,
  description: string,
  values: readonly T[],
): Option {
  return completesWith(
    new Option(flags, `${description} (${values.join(', ')})`).argParser(choiceOf(values)),
    values,
  );
}

/** Commander's collector for repeatable flags: `--permission a --permission b,c` → ['a', 'b', 'c']. */
export function collectList(value: string, previous: string[] | undefined): string[] {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return [...(previous ?? []), ...items];
}

/** `--page <n>` and `--size <n>`: whole numbers; the service checks the bounds (a 400-style usage error). */
export function parseWholeNumber(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) {
    throw new InvalidArgumentError('Expected a whole number.');
  }
  return value;
}
