/**
 * `ReactorService` (contract.ts) over one open vault: formulas (official ones from the code,
 * private ones per tenant) and reactors, with audit entries in the transaction of every change and
 * one `invoke` entry per invocation. Each operation lives in the module of its kind (formulas.ts,
 * reactors.ts, invocation.ts) and takes the service's ReactorContext (reactor-context.ts).
 */
import type { VaultHandle } from '../vault/types.ts';
import type { ReactorService } from './contract.ts';
import { createFormula, deleteFormula, getFormula, listFormulas, updateFormula } from './formulas.ts';
import { react } from './invocation.ts';
import { reactorContext } from './reactor-context.ts';
import type { ReactorServiceDeps } from './reactor-context.ts';
import { createReactor, deleteReactor, getReactor, listReactors, updateReactor } from './reactors.ts';

export type { ReactorServiceDeps } from './reactor-context.ts';

export function createReactorService(vault: VaultHandle, deps: ReactorServiceDeps): ReactorService {
  const context = reactorContext(vault, deps);
  return {
    createFormula: (principal, input) => createFormula(context, principal, input),
    listFormulas: (principal, filter, page) => listFormulas(context, principal, filter, page),
    getFormula: (principal, id) => getFormula(context, principal, id),
    updateFormula: (principal, id, input) => updateFormula(context, principal, id, input),
    deleteFormula: (principal, id) => deleteFormula(context, principal, id),

    create: (principal, input) => createReactor(context, principal, input),
    list: (principal, filter, page) => listReactors(context, principal, filter, page),
    get: (principal, id) => getReactor(context, principal, id),
    update: (principal, id, input) => updateReactor(context, principal, id, input),
    delete: (principal, id) => deleteReactor(context, principal, id),

    react: (principal, id, args) => react(context, principal, id, args),
    close: () => context.sandbox.close(),
  };
}
