import type { FastifySchemaValidationError } from 'fastify';
import type { FieldErrors } from '../../core/errors/catalogue.ts';

/**
 * Turns AJV errors into the problem `errors` map. Keys are the request property names clients
 * sent (`size`, `card.number`, `items[0].name`); an error about the whole part (e.g. a body that is
 * not an object) is keyed by the part itself (`body`, `querystring`, `params`, `headers`).
 */
export function fieldErrorsFrom(
  validation: readonly FastifySchemaValidationError[],
  context: string | undefined,
): FieldErrors {
  const errors: FieldErrors = {};
  for (const error of validation) {
    const { field, message } = describe(error);
    const key = field === '' ? (context ?? 'body') : field;
    (errors[key] ??= []).push(message);
  }
  return errors;
}

function describe(error: FastifySchemaValidationError): { field: string; message: string } {
  const segments = pointerSegments(error.instancePath);
  const params = error.params as Record<string, unknown>;
  // AJV reports a missing or extra property on the parent object; the client thinks of it as the field.
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return { field: fieldName([...segments, params.missingProperty]), message: 'is required' };
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return { field: fieldName([...segments, params.additionalProperty]), message: 'is not allowed' };
  }
  return { field: fieldName(segments), message: error.message ?? 'is invalid' };
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function fieldName(segments: readonly string[]): string {
  let name = '';
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) name += `[${segment}]`;
    else name += name === '' ? segment : `.${segment}`;
  }
  return name;
}
