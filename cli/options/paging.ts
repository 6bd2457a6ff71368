import type { Command } from 'commander';
import { DEFAULT_PAGE_SIZE } from '../../core/common-types.ts';
import { parseWholeNumber } from './values.ts';

export interface PageOptions {
  readonly page: number;
  readonly size: number;
}

/** Adds `--page` (default 1) and `--size` (default `DEFAULT_PAGE_SIZE`, at most `maxSize`). */
export function addPageOptions(command: Command, maxSize: number): Command {
  return command
    .option('--page <n>', 'page number, from 1 (default 1)', parseWholeNumber)
    .option(`--size <n>`, `items per page, 1 to ${maxSize} (default ${DEFAULT_PAGE_SIZE})`, parseWholeNumber);
}

export function pageOptionsFrom(raw: { page?: number; size?: number }): PageOptions {
  return { page: raw.page ?? 1, size: raw.size ?? DEFAULT_PAGE_SIZE };
}
