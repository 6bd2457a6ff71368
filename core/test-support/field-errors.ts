import { isVaultError, type FieldErrors } from '../errors/catalogue.ts';

/** The field errors of the VALIDATION_FAILED that `fn` throws (rethrows anything else; fails if nothing is thrown). */
export function fieldErrorsThrownBy(fn: () => unknown): FieldErrors {
  try {
    fn();
  } catch (error) {
    if (isVaultError(error, 'VALIDATION_FAILED') && error.errors !== undefined) return error.errors;
    throw error;
  }
  throw new Error('expected a validation error');
}
