/**
 * `react`: one invocation of a reactor. Its args are detokenized (token:use) and checked against
 * the formula's request parameters, the formula runs in the sandbox's worker threads (never under
 * the vault's lock) as the reactor's application, and its `tokenize` output becomes tokens of that
 * application. Each invocation leaves one `invoke` audit entry, success or failure; args and
 * results are never audited.
 */
import { authorize } from '../access/authorize.ts';
import type { Principal } from '../access/principal.ts';
import { VaultError, isVaultError, validationError } from '../errors/catalogue.ts';
import { applicationPrincipal } from '../tenancy/application-store.ts';
import { readAuditOf } from '../tokens/read-audit.ts';
import { deepFreeze } from '../validation/deep-freeze.ts';
import { isPlainObject } from '../validation/json-value.ts';
import type { ConfigurationValue, ReactResult, Reactor } from './contract.ts';
import { checkArgs, checkConfiguration } from './parameters.ts';
import { REACTOR_ENTITY, REACTOR_MESSAGES } from './reactor-context.ts';
import type { ReactorContext } from './reactor-context.ts';
import { reactorOf, reactorRow } from './reactor-store.ts';
import { svcBridge } from './svc-bridge.ts';

/** The reactor to run: from memory while none of its tables changed (ReactorContext.loaded), else read. */
async function reactorToInvoke(context: ReactorContext, principal: Principal, id: string): Promise<Reactor> {
  const { loaded, vault } = context;
  const key = `${principal.tenantId}\u0000${typeof id === 'string' ? id.toLowerCase() : ''}`;
  const cached = loaded?.get(key);
  if (cached !== undefined) return cached;
  const version = loaded?.version() ?? 0;
  const reactor = await reactorOf(
    context,
    vault.db,
    principal,
    await reactorRow(context, vault.db, principal, id),
  );
  // Shared by the invocations that follow: nothing may modify it.
  loaded?.set(key, version, deepFreeze(reactor));
  return reactor;
}

/** The stored configuration, checked against the formula again: the formula may have changed since. */
function configurationToRun(reactor: Reactor): Record<string, ConfigurationValue> {
  try {
    return checkConfiguration(reactor.configuration, reactor.formula.configuration);
  } catch (error) {
    if (isVaultError(error, 'VALIDATION_FAILED')) {
      throw new VaultError('VALIDATION_FAILED', 'Invalid Reactor Configuration', { errors: error.errors });
    }
    throw error;
  }
}

async function run(
  context: ReactorContext,
  principal: Principal,
  reactor: Reactor,
  args: unknown,
): Promise<ReactResult> {
  const { detokenizer, sandbox, tokens } = context;
  if (args !== undefined && args !== null && !isPlainObject(args))
    throw validationError({ args: ['must be an object'] });
  const detokenized = await detokenizer.detokenize(principal, args ?? {}, {
    permission: 'token:use',
    field: 'args',
  });
  const checkedArgs = checkArgs(detokenized, reactor.formula.request_parameters);
  const configuration = configurationToRun(reactor);
  const actsAs = reactor.application === null ? null : applicationPrincipal(reactor.application);
  const outcome = await sandbox.runModule({
    tenant: reactor.tenant_id,
    code: reactor.formula.code,
    args: checkedArgs,
    configuration,
    svc: actsAs === null ? null : svcBridge(tokens, actsAs),
  });
  if (outcome.kind === 'problem') throw outcome.error;
  if (outcome.kind === 'custom-response') return outcome;
  const output = outcome.output;
  if (output !== null && !isPlainObject(output)) {
    throw new VaultError('REACTOR_RUNTIME', 'Reactor Runtime Error', {
      errors: { error: ['the reactor code must return an object with raw and/or tokenize'] },
    });
  }
  const body: { raw?: unknown; tokens?: unknown } = {};
  if (output !== null && output['raw'] !== undefined) body.raw = output['raw'];
  if (output !== null && output['tokenize'] !== undefined) {
    if (actsAs === null) {
      throw new VaultError('VALIDATION_FAILED', 'Invalid Reactor Configuration', {
        errors: { application: ['the reactor needs an application to tokenize its output'] },
      });
    }
    body.tokens = await tokens.tokenize(actsAs, output['tokenize']);
  }
  return { kind: 'response', body };
}

export async function react(
  context: ReactorContext,
  principal: Principal,
  id: string,
  args: unknown,
): Promise<ReactResult> {
  authorize(principal, 'token:use');
  const reactor = await reactorToInvoke(context, principal, id);
  let succeeded = false;
  try {
    const result = await run(context, principal, reactor, args);
    succeeded = true;
    return result;
  } finally {
    const message = succeeded ? REACTOR_MESSAGES.invoke : REACTOR_MESSAGES.invokeFailed;
    // Durable before the answer, group-committed with other reads instead of a fsync each.
    await readAuditOf(context.vault).record({
      entries: [
        {
          principal,
          event: {
            tenantId: principal.tenantId,
            entityType: REACTOR_ENTITY,
            entityId: reactor.id,
            operation: 'invoke',
            message,
          },
        },
      ],
    });
  }
}
