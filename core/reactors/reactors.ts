/**
 * The reactor operations of the reactor service: create, list, get, update and delete reactors.
 * A reactor's configuration is sealed at rest; naming an application is attaching it, under the
 * grant ceiling (checkReactorBody).
 */
import { randomUUID } from 'node:crypto';
import { authorize } from '../access/authorize.ts';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import type { Page, PageRequest } from '../common-types.ts';
import { validationError } from '../errors/catalogue.ts';
import { updateAuthenticatedRow, verifiedRows, withRowMac } from '../integrity/row-authenticator.ts';
import type { NameFilter, Reactor, ReactorInput } from './contract.ts';
import { listQuery } from './list-query.ts';
import { REACTOR_ENTITY, auditChange, corrupt } from './reactor-context.ts';
import type { ReactorContext } from './reactor-context.ts';
import { checkReactorBody, reactorOf, reactorRow, referenceId, sealConfiguration } from './reactor-store.ts';
import type { ReactorRow } from './reactor-store.ts';

export async function createReactor(
  context: ReactorContext,
  principal: Principal,
  input: ReactorInput,
): Promise<Reactor> {
  authorize(principal, 'reactor:create');
  const { vault } = context;
  const formulaId = referenceId(input.formula, 'formula');
  if (formulaId === null) throw validationError({ 'formula.id': ['is required'] });
  return vault.transaction(async (trx) => {
    const { formula, name, configuration, application } = await checkReactorBody(
      context,
      trx,
      principal,
      input,
      formulaId,
      () => validationError({ 'formula.id': ['no such reactor formula'] }),
    );
    const row: Omit<ReactorRow, 'row_mac'> = {
      id: randomUUID(),
      tenant_id: principal.tenantId,
      name,
      formula_id: formula.id,
      configuration: JSON.stringify(configuration),
      application_id: application?.id ?? null,
      created_by: actorOf(principal).actor_id,
      created_at: vault.clock.now().toISOString(),
      modified_by: null,
      modified_at: null,
    };
    await trx
      .insertInto('reactors')
      .values(
        withRowMac(vault, 'reactors', {
          ...row,
          configuration: await sealConfiguration(context, trx, row.tenant_id, row.id, row.configuration),
        }),
      )
      .execute();
    await auditChange(context, trx, principal, REACTOR_ENTITY, row.id, 'create');
    return reactorOf(context, trx, principal, row);
  });
}

export async function listReactors(
  context: ReactorContext,
  principal: Principal,
  filter: NameFilter,
  page: PageRequest,
): Promise<Page<Reactor>> {
  authorize(principal, 'reactor:read');
  const query = listQuery(filter, page);
  const { vault } = context;
  let rows = vault.db.selectFrom('reactors').selectAll().where('tenant_id', '=', principal.tenantId);
  // Only the reactors asked for are read (and verified): another one's damaged row does not fail the list.
  if (query.ids !== undefined) rows = rows.where('id', 'in', query.ids.length > 0 ? query.ids : ['']);
  const verified = verifiedRows(vault, 'reactors', await rows.orderBy('created_at').orderBy('id').execute());
  // Only the page's reactors are completed (their formula and application read, their configuration opened).
  const listed = query.page(verified);
  const items: Reactor[] = [];
  for (const row of listed.items) items.push(await reactorOf(context, vault.db, principal, row));
  return { total: listed.total, items };
}

export async function getReactor(
  context: ReactorContext,
  principal: Principal,
  id: string,
): Promise<Reactor> {
  authorize(principal, 'reactor:read');
  const { db } = context.vault;
  return reactorOf(context, db, principal, await reactorRow(context, db, principal, id));
}

/** Full replacement of name, configuration and application; the formula stays. */
export async function updateReactor(
  context: ReactorContext,
  principal: Principal,
  id: string,
  input: ReactorInput,
): Promise<Reactor> {
  authorize(principal, 'reactor:update');
  const { vault } = context;
  return vault.transaction(async (trx) => {
    const row = await reactorRow(context, trx, principal, id);
    const { name, configuration, application } = await checkReactorBody(
      context,
      trx,
      principal,
      input,
      row.formula_id,
      () => corrupt('reactor formula reference'),
    );
    const changes = {
      name,
      configuration: JSON.stringify(configuration),
      application_id: application?.id ?? null,
      modified_by: actorOf(principal).actor_id,
      modified_at: vault.clock.now().toISOString(),
    };
    await updateAuthenticatedRow(trx, vault, 'reactors', row, {
      ...changes,
      configuration: await sealConfiguration(context, trx, row.tenant_id, row.id, changes.configuration),
    });
    await auditChange(context, trx, principal, REACTOR_ENTITY, row.id, 'update');
    return reactorOf(context, trx, principal, { ...row, ...changes });
  });
}

export async function deleteReactor(
  context: ReactorContext,
  principal: Principal,
  id: string,
): Promise<void> {
  authorize(principal, 'reactor:delete');
  await context.vault.transaction(async (trx) => {
    const row = await reactorRow(context, trx, principal, id);
    await trx.deleteFrom('reactors').where('id', '=', row.id).execute();
    await auditChange(context, trx, principal, REACTOR_ENTITY, row.id, 'delete');
  });
}
