/**
 * The host side of the calls a run's code makes (`svc.*`, `fetch`): each arrives from the worker as
 * a message and is answered through the functions handed in for that run only.
 */
import { VaultError, isVaultError } from '../errors/catalogue.ts';
import type { SandboxLimits } from './limits.ts';
import { SANDBOX_FETCH_MAX_RESPONSE_BYTES, SANDBOX_FETCH_TIMEOUT_MS } from './outbound.ts';
import type { OutboundFetch, OutboundRequest } from './outbound.ts';
import type { SvcMethod } from './prelude.ts';
import type { CallMessage, HostCallError, HostToWorker } from './protocol.ts';

/** The `svc` client's host side for one run: resolves with a JSON-serialisable value. */
export type SvcBridge = (method: SvcMethod, args: readonly unknown[]) => Promise<unknown>;

/** What a host call may reach: the run's own `svc` bridge and limits, and the sandbox's network. */
export interface HostCallScope {
  readonly svc: SvcBridge | null;
  readonly limits: SandboxLimits;
  readonly outbound: OutboundFetch;
}

function hostError(error: unknown): HostCallError {
  if (isVaultError(error)) {
    return {
      name: 'SvcError',
      // A 5xx detail may name internals (a refused row's table and key): the code gets the title,
      // as an HTTP caller gets a generic detail.
      message: error.status >= 500 ? error.title : error.detail,
      status: error.status,
      code: error.code,
      ...(error.errors === undefined ? {} : { errors: error.errors }),
    };
  }
  return { name: 'Error', message: 'The host call failed.' };
}

async function fetchFor(raw: unknown, scope: HostCallScope): Promise<unknown> {
  const r = raw as Partial<Record<keyof OutboundRequest, unknown>> | undefined;
  if (typeof r?.url !== 'string' || typeof r.method !== 'string' || !Array.isArray(r.headers)) {
    throw new VaultError('VALIDATION_FAILED', 'fetch needs a URL.');
  }
  const headers = (r.headers as unknown[]).filter(
    (pair): pair is [string, string] =>
      Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string',
  );
  const response = await scope.outbound({
    url: r.url,
    method: r.method,
    headers,
    body: typeof r.body === 'string' ? r.body : null,
    timeoutMs: Math.min(SANDBOX_FETCH_TIMEOUT_MS, scope.limits.timeoutMs),
    maxResponseBytes: Math.min(SANDBOX_FETCH_MAX_RESPONSE_BYTES, scope.limits.outputBytes),
  });
  if (Buffer.byteLength(response.body, 'utf8') > SANDBOX_FETCH_MAX_RESPONSE_BYTES) {
    throw new VaultError('PAYLOAD_TOO_LARGE', 'The fetched response body is too large.');
  }
  return response;
}

async function perform(call: CallMessage, scope: HostCallScope): Promise<unknown> {
  const args: unknown = JSON.parse(call.argsJson);
  if (!Array.isArray(args)) throw new VaultError('VALIDATION_FAILED', 'Host call arguments must be a list.');
  if (call.target === 'fetch') return fetchFor(args[0], scope);
  if (scope.svc === null)
    throw new VaultError('VALIDATION_FAILED', 'This reactor has no application: req.svc is null.');
  return scope.svc(call.target.slice('svc.'.length) as SvcMethod, args);
}

/** Performs `call` and hands its reply (value or error) to `reply`; never rejects. */
export function answerHostCall(
  call: CallMessage,
  scope: HostCallScope,
  reply: (message: HostToWorker) => void,
): void {
  perform(call, scope).then(
    (value) =>
      reply({
        type: 'reply',
        runId: call.runId,
        callId: call.callId,
        ok: true,
        json: JSON.stringify(value ?? null),
      }),
    (error: unknown) =>
      reply({ type: 'reply', runId: call.runId, callId: call.callId, ok: false, error: hostError(error) }),
  );
}
