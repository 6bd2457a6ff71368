/**
 * Reading and writing formula rows: official formulas come from the code, private ones from the
 * tenant's `reactor_formulas` rows, verified against their MACs (their code is what runs with a
 * reactor's application).
 */
import type { Kysely } from 'kysely';
import { withShownActors } from '../access/actor-ids.ts';
import type { Principal } from '../access/principal.ts';
import { VaultError } from '../errors/catalogue.ts';
import { verified } from '../integrity/row-authenticator.ts';
import type { Database, ReactorFormulasTable } from '../storage/schema.ts';
import type { ConfigurationSetting, FormulaWarning, ReactorFormula, RequestParameter } from './contract.ts';
import type { CheckedFormula } from './formula-input.ts';
import { formulaWarningOf } from './formula-warning.ts';
import { officialFormula } from './official-formulas.ts';
import { notFound, parseStoredJson } from './reactor-context.ts';
import type { ReactorContext } from './reactor-context.ts';

export type FormulaRow = ReactorFormulasTable;

export function formulaOf(row: Omit<FormulaRow, 'row_mac'>): ReactorFormula {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: 'private',
    status: row.status === 'coming_soon' ? 'coming_soon' : 'verified',
    icon: row.icon,
    code: row.code,
    configuration: parseStoredJson<ConfigurationSetting[]>(row.configuration, 'formula configuration'),
    request_parameters: parseStoredJson<RequestParameter[]>(
      row.request_parameters,
      'formula request parameters',
    ),
    created_by: row.created_by,
    created_at: row.created_at,
    modified_by: row.modified_by,
    modified_at: row.modified_at,
  };
}

/** The columns a checked formula body sets (on create and on update alike). */
export function formulaColumns(checked: CheckedFormula) {
  return {
    name: checked.name,
    description: checked.description,
    status: checked.status,
    icon: checked.icon,
    code: checked.code,
    configuration: JSON.stringify(checked.configuration),
    request_parameters: JSON.stringify(checked.request_parameters),
  };
}

/** The tenant's private formula `id`, verified: its code is what runs with a reactor's application. */
async function formulaRow(
  context: ReactorContext,
  db: Kysely<Database>,
  principal: Principal,
  id: string,
): Promise<FormulaRow | undefined> {
  return verified(
    context.vault,
    'reactor_formulas',
    await db
      .selectFrom('reactor_formulas')
      .selectAll()
      .where('tenant_id', '=', principal.tenantId)
      .where('id', '=', id.toLowerCase())
      .executeTakeFirst(),
  );
}

/** An official formula, or a private one of the caller's tenant; undefined for any other id. */
export async function findFormula(
  context: ReactorContext,
  db: Kysely<Database>,
  principal: Principal,
  id: string,
): Promise<ReactorFormula | undefined> {
  const official = officialFormula(id);
  if (official !== undefined) return official;
  const row = await formulaRow(context, db, principal, id);
  return row === undefined ? undefined : withShownActors(principal, formulaOf(row));
}

export function refuseOfficial(id: string): void {
  if (officialFormula(id) !== undefined)
    throw new VaultError('FORBIDDEN', 'Official formulas are read-only.');
}

/** A private formula of the caller's tenant, to change or delete: official ones are read-only. */
export async function privateFormulaRow(
  context: ReactorContext,
  trx: Kysely<Database>,
  principal: Principal,
  id: string,
): Promise<FormulaRow> {
  refuseOfficial(id);
  const row = await formulaRow(context, trx, principal, id);
  if (row === undefined) throw notFound('reactor formula');
  return row;
}

/**
 * Code that does not compile is saved and fails at invocation, as clients of the API expect; the
 * check runs anyway, so the save can warn with the same text and position.
 */
export async function codeWarnings(
  context: ReactorContext,
  checked: CheckedFormula,
  tenant: string,
): Promise<FormulaWarning[]> {
  const problem = await context.sandbox.checkModuleCode(checked.code, tenant);
  return problem === null ? [] : [formulaWarningOf(problem.detail)];
}
