import { answer } from '../../connection/answer.ts';
import type { CliServices } from '../contract.ts';
import { tenantHeaders, type HttpContext } from './context.ts';

/** `{{ <token id> | filters }}` expressions replaced by token data, through the view asked for. */
export function httpDetokenizer(http: HttpContext): CliServices['detokenizer'] {
  return {
    detokenize: (principal, value) =>
      answer(http.api.POST('/detokenize', { ...tenantHeaders(http, principal), body: value })),
  };
}
