import { requestBudget, runWithRequestBudget } from '../../core/expressions/index.ts';
import type { VaultServer } from '../types.ts';

/**
 * Opens one expression budget per request: everything the request's handlers evaluate (masks,
 * fingerprints, search indexes, alias ids, of every token it touches) is charged to it, so no
 * request can keep the event loop busy with expressions for longer than the budget allows.
 * The budget is ambient (AsyncLocalStorage), entered here so it covers the rest of the lifecycle.
 */
export function installExpressionBudget(app: VaultServer): void {
  app.addHook('onRequest', (_request, _reply, done) => {
    runWithRequestBudget(requestBudget(), () => done());
  });
}
