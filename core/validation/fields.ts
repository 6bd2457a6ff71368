import { validationError } from '../errors/catalogue.ts';
import type { FieldErrors } from '../errors/catalogue.ts';

/**
 * Collects field errors of one input so a caller sees every problem at once, then throws a single
 * VALIDATION_FAILED. Services validate everything before they open a transaction.
 */
export class FieldErrorCollector {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  merge(errors: FieldErrors): void {
    for (const [field, messages] of Object.entries(errors)) for (const m of messages) this.add(field, m);
  }

  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  throwIfAny(detail?: string): void {
    if (!this.empty) throw validationError(this.errors, detail);
  }
}

export const NAME_MAX = 200;

/** A required display name (tenant, application): trimmed, 1..200 characters. */
export function checkName(errors: FieldErrorCollector, value: unknown, field = 'name'): string {
  if (typeof value !== 'string' || value.trim() === '') {
    errors.add(field, 'is required');
    return '';
  }
  const name = value.trim();
  if (name.length > NAME_MAX) errors.add(field, `must be at most ${NAME_MAX} characters`);
  return name;
}

/**
 * Offset pagination: page from 1, size 0..maxSize. Size 0 is an empty page that still reports how
 * many items match: a caller counts without fetching.
 */
export function checkPage(
  page: { page: number; size: number },
  maxSize: number,
): { offset: number; limit: number } {
  const errors = new FieldErrorCollector();
  if (!Number.isSafeInteger(page.page) || page.page < 1) errors.add('page', 'must be an integer ≥ 1');
  if (!Number.isSafeInteger(page.size) || page.size < 0 || page.size > maxSize)
    errors.add('size', `must be an integer from 0 to ${maxSize}`);
  errors.throwIfAny();
  return { offset: (page.page - 1) * page.size, limit: page.size };
}
