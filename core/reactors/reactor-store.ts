/**
 * Reading and writing reactor rows: a reactor as the API shows it (formula, opened configuration,
 * application), the checks of a reactor body, and the sealing of its configuration.
 */
import type { Kysely } from 'kysely';
import { withShownActors } from '../access/actor-ids.ts';
import type { Principal } from '../access/principal.ts';
import { reactorConfigurationContext } from '../crypto/sealed-text.ts';
import { validationError, type VaultError } from '../errors/catalogue.ts';
import { verified } from '../integrity/row-authenticator.ts';
import type { Database, ReactorsTable } from '../storage/schema.ts';
import { applicationOf, findApplicationRow } from '../tenancy/application-store.ts';
import { attachableApplication } from '../tenancy/attachable-application.ts';
import type { Application } from '../tenancy/contract.ts';
import { FieldErrorCollector, checkName } from '../validation/fields.ts';
import { isPlainObject } from '../validation/json-value.ts';
import type { ConfigurationValue, Reactor, ReactorFormula, ReactorInput } from './contract.ts';
import { findFormula } from './formula-store.ts';
import { checkConfiguration } from './parameters.ts';
import { corrupt, notFound, parseStoredJson } from './reactor-context.ts';
import type { ReactorContext } from './reactor-context.ts';

export type ReactorRow = ReactorsTable;

/** The `id` of a `{ id }` reference (or of a whole object carrying one), else a 400 naming `field`. */
export function referenceId(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (isPlainObject(value) && typeof value['id'] === 'string' && value['id'] !== '') return value['id'];
  throw validationError({ [`${field}.id`]: ['is required'] });
}

/** The configuration JSON of reactor `reactorId` as stored: sealed under the tenant's key. */
export function sealConfiguration(
  context: ReactorContext,
  trx: Kysely<Database>,
  tenantId: string,
  reactorId: string,
  json: string,
): Promise<string> {
  return context.sealed.seal(trx, tenantId, reactorConfigurationContext(reactorId), json);
}

/** The application `id` of the caller's tenant; null when there is none (or it was deleted). */
export async function applicationFor(
  context: ReactorContext,
  db: Kysely<Database>,
  principal: Principal,
  id: string | null,
): Promise<Application | null> {
  if (id === null) return null;
  const row = await findApplicationRow(db, context.vault, id.toLowerCase());
  return row === undefined || row.tenant_id !== principal.tenantId
    ? null
    : withShownActors(principal, applicationOf(row));
}

export async function reactorOf(
  context: ReactorContext,
  db: Kysely<Database>,
  principal: Principal,
  row: Omit<ReactorRow, 'row_mac'>,
): Promise<Reactor> {
  const formula = await findFormula(context, db, principal, row.formula_id);
  if (formula === undefined) throw corrupt('reactor formula reference');
  return withShownActors(principal, {
    id: row.id,
    tenant_id: row.tenant_id,
    name: row.name,
    formula,
    configuration: parseStoredJson<Record<string, ConfigurationValue>>(
      await context.sealed.open(db, row.tenant_id, reactorConfigurationContext(row.id), row.configuration),
      'reactor configuration',
    ),
    application: await applicationFor(context, db, principal, row.application_id),
    created_by: row.created_by,
    created_at: row.created_at,
    modified_by: row.modified_by,
    modified_at: row.modified_at,
  });
}

/** Reactor `id` of the caller's tenant, verified; NOT_FOUND for any other. */
export async function reactorRow(
  context: ReactorContext,
  db: Kysely<Database>,
  principal: Principal,
  id: string,
): Promise<ReactorRow> {
  // Its formula, application and configuration decide what an invocation does and as whom.
  const row = verified(
    context.vault,
    'reactors',
    await db
      .selectFrom('reactors')
      .selectAll()
      .where('tenant_id', '=', principal.tenantId)
      .where('id', '=', typeof id === 'string' ? id.toLowerCase() : '')
      .executeTakeFirst(),
  );
  if (row === undefined) throw notFound('reactor');
  return row;
}

/**
 * Name, configuration (against the formula `formulaId`) and application of a reactor body;
 * `missing` is what a formula that is not there means to the caller.
 */
export async function checkReactorBody(
  context: ReactorContext,
  db: Kysely<Database>,
  principal: Principal,
  input: ReactorInput,
  formulaId: string,
  missing: () => VaultError,
): Promise<{
  formula: ReactorFormula;
  name: string;
  configuration: Record<string, ConfigurationValue>;
  application: Application | null;
}> {
  const formula = await findFormula(context, db, principal, formulaId);
  if (formula === undefined) throw missing();
  const collector = new FieldErrorCollector();
  const name = checkName(collector, input.name);
  collector.throwIfAny();
  const configuration = checkConfiguration(input.configuration ?? {}, formula.configuration);
  const applicationId = referenceId(input.application, 'application');
  // A reactor runs as its application: creating or changing one that has an application is
  // attaching it, under the grant ceiling, whatever the change.
  const application =
    applicationId === null ? null : await attachableApplication(db, context.vault, principal, applicationId);
  return { formula, name, configuration, application };
}
