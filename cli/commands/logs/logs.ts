import { Command, InvalidArgumentError } from 'commander';
import type { Principal } from '../../../core/access/principal.ts';
import { ACTOR_TYPES, type ActorType } from '../../../core/access/principal.ts';
import { AUDIT_OPERATIONS, ENTITY_TYPES, type AuditOperation } from '../../../core/audit/entity-types.ts';
import type { LogFilter } from '../../../core/audit/audit-log.ts';
import type { LogEntry } from '../../../core/services-contract.ts';
import type { CliServices } from '../../services/contract.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import { parseTimeInput } from '../../options/time-input.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { choiceOption } from '../../options/values.ts';
import { pagedJson } from '../../output/pages.ts';
import { writeTable } from '../../output/table.ts';
import { colours, writeJson, writeLine } from '../../output/write.ts';
import { withServices } from '../../services/with-services.ts';
import { operatorIn, resolveTenant } from '../../tenancy/tenant-scope.ts';
import { newLogsPruneCommand } from './prune.ts';
import { newLogsVerifyCommand } from './verify.ts';

export interface LogsOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
  readonly entityType: string | undefined;
  readonly entityId: string | undefined;
  readonly actorId: string | undefined;
  readonly actorType: ActorType | undefined;
  readonly operation: AuditOperation | undefined;
  /** ISO 8601 (UTC, as stored), inclusive. */
  readonly since: string | undefined;
  /** ISO 8601 (UTC, as stored), exclusive. */
  readonly until: string | undefined;
  readonly limit: number;
  readonly follow: boolean;
}

type RawLogs = RawOptions & {
  tenant?: string;
  entityType?: string;
  entityId?: string;
  actor?: string;
  actorType?: ActorType;
  operation?: AuditOperation;
  since?: string;
  until?: string;
  limit?: number;
  follow?: boolean;
};

export const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 10_000;
/** How often `--follow` looks for new entries. */
export const FOLLOW_INTERVAL_MS = 1000;
/** Entries per service call; larger limits are fetched page by page. */
const PAGE_SIZE = 100;

export function parseLimit(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1 || value > MAX_LIMIT) {
    throw new InvalidArgumentError(`Expected a whole number between 1 and ${MAX_LIMIT}.`);
  }
  return value;
}

const HELP_AFTER = `
Entity types: ${ENTITY_TYPES.map((t) => t.value).join(', ')}.
A list or a search of tokens is one entry (entity id "list" or "search") standing for every token it
returned: --entity-id <token id> finds it. Reads say whether the data was seen masked or revealed.

While a server (svc start, svc serve) holds the vault, the command reads the log through it, so
--follow shows what anyone writes (checked every second; Ctrl-C stops). Actors are shown by name:
an application's name, a member's e-mail, the operator.

Examples:
  svc logs --since 24h
  svc logs --since yesterday --until today --entity-type token
  svc logs --actor-type user --operation read
  svc logs --entity-id <token id>             (every entry about the token, lists that returned it too)
  svc logs --follow --json | jq .message

See also: svc logs verify (checks that no entry was altered, removed or reordered).`;

export function newLogsCommand(deps: CliDeps, run: Runner<LogsOptions> = (o) => runLogs(deps, o)): Command {
  const command = new Command('logs')
    .description("Show a tenant's audit log, newest first")
    // `svc logs verify --tenant T`: options after the verb belong to the verb.
    .enablePositionalOptions()
    .addOption(
      choiceOption(
        '--entity-type <type>',
        'only entries about this kind of entity',
        ENTITY_TYPES.map((t) => t.value),
      ),
    )
    .option('--entity-id <id>', 'only entries about this entity (or standing for it among others)')
    .option('--actor <id>', 'only entries by this application or user id')
    .addOption(choiceOption('--actor-type <type>', 'only entries by this kind of actor', ACTOR_TYPES))
    .addOption(choiceOption('--operation <operation>', 'only entries of this operation', AUDIT_OPERATIONS))
    .option(
      '--since <time>',
      'only entries at or after this time: ISO 8601, 24h, 7d, today, yesterday',
      (text) => parseTimeInput(text, deps.clock.now()),
    )
    .option('--until <time>', 'only entries before this time (the same forms)', (text) =>
      parseTimeInput(text, deps.clock.now()),
    )
    .option('--limit <n>', `at most this many entries (default ${DEFAULT_LIMIT})`, parseLimit)
    .option('-f, --follow', 'keep running and print new entries as they are written');
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  command.addHelpText('after', HELP_AFTER);
  command.addCommand(newLogsVerifyCommand(deps));
  command.addCommand(newLogsPruneCommand(deps));
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawLogs>();
    await run({
      ...vaultOptionsFrom(raw),
      tenant: raw.tenant,
      entityType: raw.entityType,
      entityId: raw.entityId,
      actorId: raw.actor,
      actorType: raw.actorType,
      operation: raw.operation,
      since: raw.since,
      until: raw.until,
      limit: raw.limit ?? DEFAULT_LIMIT,
      follow: raw.follow === true,
    });
  });
}

function filterOf(options: LogsOptions): LogFilter {
  return {
    ...(options.entityType === undefined ? {} : { entityType: options.entityType }),
    ...(options.entityId === undefined ? {} : { entityId: options.entityId }),
    ...(options.actorId === undefined ? {} : { actorId: options.actorId }),
    ...(options.actorType === undefined ? {} : { actorType: options.actorType }),
    ...(options.operation === undefined ? {} : { operation: options.operation }),
    ...(options.since === undefined ? {} : { startDate: options.since }),
    ...(options.until === undefined ? {} : { endDate: options.until }),
  };
}

interface Scope {
  readonly services: CliServices;
  readonly principal: Principal;
  readonly filter: LogFilter;
}

/** The newest `limit` entries, newest first, and how many match in all. */
async function newest(scope: Scope, limit: number): Promise<{ items: LogEntry[]; total: number }> {
  const items: LogEntry[] = [];
  let total = 0;
  for (let page = 1; items.length < limit; page++) {
    const size = Math.min(PAGE_SIZE, limit);
    const result = await scope.services.logs.list(scope.principal, scope.filter, { page, size });
    total = result.total;
    items.push(...result.items);
    if (result.items.length < size || items.length >= total) break;
  }
  return { items: items.slice(0, limit), total };
}

/** Entries newer than `seenId` (everything when null), newest first. */
async function newerThan(scope: Scope, seenId: string | null): Promise<LogEntry[]> {
  const fresh: LogEntry[] = [];
  for (let page = 1; ; page++) {
    const result = await scope.services.logs.list(scope.principal, scope.filter, { page, size: PAGE_SIZE });
    for (const entry of result.items) {
      if (entry.id === seenId) return fresh;
      fresh.push(entry);
    }
    if (result.items.length < PAGE_SIZE) return fresh;
  }
}

/**
 * Who acted, as a person reads it: "application Shop", "user ada@example.com", "operator". The name
 * (`actor_name`) is the log's own; an entry without one (the actor since deleted) shows the actor's
 * type and id.
 */
export function actorOf(entry: Pick<LogEntry, 'actor_type' | 'actor_id' | 'actor_name'>): string {
  if (entry.actor_type === null) return '-';
  if (entry.actor_type === 'operator') return 'operator';
  const name = entry.actor_name;
  if (name !== null && name !== '') return `${entry.actor_type} ${name}`;
  return entry.actor_id === null ? entry.actor_type : `${entry.actor_type} ${entry.actor_id}`;
}

const COLUMNS = ['Time', 'Operation', 'Entity', 'Entity ID', 'Actor', 'Message'];

/** The operation, and for a read whether the caller saw the data: "read (masked)", "read (revealed)". */
export function operationOf(entry: Pick<LogEntry, 'operation' | 'revealed'>): string {
  if (entry.revealed === null) return entry.operation;
  return `${entry.operation} (${entry.revealed ? 'revealed' : 'masked'})`;
}

/** The entity's id; an entry standing for several ids says how many: "list (50 ids)". */
export function entityIdOf(entry: Pick<LogEntry, 'entity_id' | 'entity_ids'>): string {
  if (entry.entity_ids === null) return entry.entity_id;
  const n = entry.entity_ids.length;
  return `${entry.entity_id} (${n} ${n === 1 ? 'id' : 'ids'})`;
}

function row(entry: LogEntry): string[] {
  return [
    entry.created_at,
    operationOf(entry),
    entry.entity_type,
    entityIdOf(entry),
    actorOf(entry),
    entry.message,
  ];
}

/** A streamed entry: one JSON line, or one line of fields (tab-separated in a pipe). */
function writeStreamed(deps: CliDeps, entry: LogEntry, json: boolean): void {
  if (json) {
    writeLine(deps.stdout, JSON.stringify(entry));
    return;
  }
  const fields = row(entry);
  if (!deps.stdout.isTTY) {
    writeLine(deps.stdout, fields.join('\t'));
    return;
  }
  const { dim } = colours(deps);
  const [time = '', ...rest] = fields;
  writeLine(deps.stdout, `${dim(time)}  ${rest.join('  ')}`);
}

async function follow(deps: CliDeps, scope: Scope, seenId: string | null, json: boolean): Promise<void> {
  const stopped = new AbortController();
  void deps.waitForShutdown().then(() => stopped.abort());
  if (deps.stderr.isTTY) writeLine(deps.stderr, 'Following new entries; press Ctrl-C to stop.');
  let lastSeen = seenId;
  // A commit counter, where there is one, says cheaply whether anything was written since the
  // last look; through a server every look asks for the newest entries.
  let counter = scope.services.changeCounter();
  while (!stopped.signal.aborted) {
    await deps.sleep(FOLLOW_INTERVAL_MS, stopped.signal);
    if (stopped.signal.aborted) continue;
    const now = scope.services.changeCounter();
    if (now !== undefined && now === counter) continue;
    counter = now;
    const fresh = await newerThan(scope, lastSeen);
    if (fresh[0] !== undefined) lastSeen = fresh[0].id;
    for (const entry of fresh.reverse()) writeStreamed(deps, entry, json);
  }
}

export async function runLogs(deps: CliDeps, options: LogsOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  await withServices(deps, resolved, options.key, async (services) => {
    const tenant = await resolveTenant(services, options.tenant);
    const scope: Scope = { services, principal: operatorIn(tenant.id), filter: filterOf(options) };
    const { items, total } = await newest(scope, options.limit);

    if (options.follow && options.json) {
      for (const entry of items) writeStreamed(deps, entry, true);
    } else if (options.json) {
      // The newest --limit entries are the first page of that size, in the API's envelope.
      writeJson(deps.stdout, pagedJson({ total, items }, { page: 1, size: options.limit }));
    } else if (items.length === 0) {
      writeLine(deps.stderr, 'No log entries match.');
    } else if (!deps.stdout.isTTY) {
      writeTable(deps, COLUMNS, items.map(row));
    } else {
      // One line per entry, as --follow prints them: every field whole (a table at 80 columns
      // would cut the time, the entity id or the message).
      for (const entry of items) writeStreamed(deps, entry, false);
    }
    if (!options.json && total > items.length) {
      writeLine(deps.stderr, `Showing the newest ${items.length} of ${total} entries; --limit shows more.`);
    }
    if (options.follow) await follow(deps, scope, items[0]?.id ?? null, options.json);
  });
}
