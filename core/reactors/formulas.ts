/**
 * The formula operations of the reactor service: create, list, get, update and delete private
 * formulas; official formulas are listed and read beside them, never changed. Formula code is
 * checked in the sandbox before any transaction opens (a problem is a warning of the save, not a
 * refusal).
 */
import { randomUUID } from 'node:crypto';
import { withShownActors } from '../access/actor-ids.ts';
import { authorize } from '../access/authorize.ts';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import type { Page, PageRequest } from '../common-types.ts';
import { VaultError } from '../errors/catalogue.ts';
import { updateAuthenticatedRow, verifiedRows, withRowMac } from '../integrity/row-authenticator.ts';
import { assertMayAttach } from '../tenancy/grant-ceiling.ts';
import type { NameFilter, ReactorFormula, ReactorFormulaInput, SavedFormula } from './contract.ts';
import { checkFormulaInput } from './formula-input.ts';
import {
  codeWarnings,
  findFormula,
  formulaColumns,
  formulaOf,
  privateFormulaRow,
  refuseOfficial,
} from './formula-store.ts';
import type { FormulaRow } from './formula-store.ts';
import { listQuery } from './list-query.ts';
import { OFFICIAL_FORMULAS } from './official-formulas.ts';
import { FORMULA_ENTITY, auditChange, notFound } from './reactor-context.ts';
import type { ReactorContext } from './reactor-context.ts';
import { applicationFor } from './reactor-store.ts';

export async function createFormula(
  context: ReactorContext,
  principal: Principal,
  input: ReactorFormulaInput,
): Promise<SavedFormula> {
  authorize(principal, 'reactor:create');
  const { vault } = context;
  const checked = checkFormulaInput(input);
  const warnings = await codeWarnings(context, checked, principal.tenantId);
  const formula = await vault.transaction(async (trx) => {
    const row: FormulaRow = withRowMac(vault, 'reactor_formulas', {
      id: randomUUID(),
      tenant_id: principal.tenantId,
      ...formulaColumns(checked),
      created_by: actorOf(principal).actor_id,
      created_at: vault.clock.now().toISOString(),
      modified_by: null,
      modified_at: null,
    });
    await trx.insertInto('reactor_formulas').values(row).execute();
    await auditChange(context, trx, principal, FORMULA_ENTITY, row.id, 'create');
    return formulaOf(row);
  });
  return { formula, warnings };
}

/** Official formulas first, then the tenant's private ones by creation. */
export async function listFormulas(
  context: ReactorContext,
  principal: Principal,
  filter: NameFilter,
  page: PageRequest,
): Promise<Page<ReactorFormula>> {
  authorize(principal, 'reactor:read');
  const query = listQuery(filter, page);
  const { vault } = context;
  const rows = verifiedRows(
    vault,
    'reactor_formulas',
    await vault.db
      .selectFrom('reactor_formulas')
      .selectAll()
      .where('tenant_id', '=', principal.tenantId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  );
  return query.page([...OFFICIAL_FORMULAS, ...rows.map((row) => withShownActors(principal, formulaOf(row)))]);
}

export async function getFormula(
  context: ReactorContext,
  principal: Principal,
  id: string,
): Promise<ReactorFormula> {
  authorize(principal, 'reactor:read');
  const formula = await findFormula(context, context.vault.db, principal, id);
  if (formula === undefined) throw notFound('reactor formula');
  return formula;
}

export async function updateFormula(
  context: ReactorContext,
  principal: Principal,
  id: string,
  input: ReactorFormulaInput,
): Promise<SavedFormula> {
  authorize(principal, 'reactor:update');
  const { vault } = context;
  refuseOfficial(id);
  const checked = checkFormulaInput(input);
  const warnings = await codeWarnings(context, checked, principal.tenantId);
  const formula = await vault.transaction(async (trx) => {
    const row = await privateFormulaRow(context, trx, principal, id);
    // Each reactor of the formula runs the new code as its application: changing the code is
    // attaching every one of them.
    const runAs = await trx
      .selectFrom('reactors')
      .select('application_id')
      .distinct()
      .where('tenant_id', '=', principal.tenantId)
      .where('formula_id', '=', row.id)
      .where('application_id', 'is not', null)
      .execute();
    for (const { application_id } of runAs) {
      const application = await applicationFor(context, trx, principal, application_id);
      if (application !== null) assertMayAttach(principal, application);
    }
    const updated = await updateAuthenticatedRow(trx, vault, 'reactor_formulas', row, {
      ...formulaColumns(checked),
      modified_by: actorOf(principal).actor_id,
      modified_at: vault.clock.now().toISOString(),
    });
    await auditChange(context, trx, principal, FORMULA_ENTITY, row.id, 'update');
    return withShownActors(principal, formulaOf(updated));
  });
  return { formula, warnings };
}

/** A formula that reactors use stays (CONFLICT): they are deleted first. */
export async function deleteFormula(
  context: ReactorContext,
  principal: Principal,
  id: string,
): Promise<void> {
  authorize(principal, 'reactor:delete');
  await context.vault.transaction(async (trx) => {
    const row = await privateFormulaRow(context, trx, principal, id);
    const user = await trx
      .selectFrom('reactors')
      .select('id')
      .where('tenant_id', '=', principal.tenantId)
      .where('formula_id', '=', row.id)
      .executeTakeFirst();
    if (user !== undefined) {
      throw new VaultError('CONFLICT', 'Reactors use this formula: delete them first.');
    }
    await trx.deleteFrom('reactor_formulas').where('id', '=', row.id).execute();
    await auditChange(context, trx, principal, FORMULA_ENTITY, row.id, 'delete');
  });
}
