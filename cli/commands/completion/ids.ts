import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import type { IdKind } from '../../options/completion-values.ts';
import type { CliServices } from '../../services/contract.ts';
import { withServices } from '../../services/with-services.ts';
import { inTenant } from '../../tenancy/tenant-scope.ts';
import type { Principal } from '../../../core/access/principal.ts';

/** A completion lists one page of each: enough to pick from, and quick. */
const PAGE = { page: 1, size: 100 };

const LISTS: Readonly<
  Record<Exclude<IdKind, 'tenant'>, (services: CliServices, principal: Principal) => Promise<string[]>>
> = {
  application: async (s, p) => (await s.applications.list(p, {}, PAGE)).items.map((a) => a.id),
  token: async (s, p) => (await s.tokens.list(p, {}, PAGE)).items.map((t) => t.id),
  proxy: async (s, p) => (await s.proxies.list(p, {}, PAGE)).items.map((x) => x.id),
  formula: async (s, p) => (await s.reactors.listFormulas(p, {}, PAGE)).items.map((f) => f.id),
  reactor: async (s, p) => (await s.reactors.list(p, {}, PAGE)).items.map((r) => r.id),
  invitation: async (s, p) => (await s.invitations.list(p, {}, PAGE)).items.map((i) => i.id),
  member: async (s, p) => (await s.members.list(p, {}, PAGE)).items.map((m) => m.id),
};

/**
 * The ids of existing resources of one kind, for shell completion, wherever the vault is (the
 * server holding it, or opened here). Tenants are listed by name where one word names one tenant,
 * else by id. Anything that fails (no vault, a key that needs a prompt) lists nothing: completion
 * must never ask or print an error on the command line being typed.
 */
export async function listIds(deps: CliDeps, kind: IdKind, tenant: string | undefined): Promise<string[]> {
  const quiet: CliDeps = { ...deps, isTTY: false };
  try {
    const resolved = await loadConfig(quiet, {});
    if (kind === 'tenant') {
      const tenants = await withServices(quiet, resolved, {}, (services) => services.tenants.listAll());
      const names = tenants.map((t) => t.name);
      return tenants.map((t) =>
        /^\S+$/.test(t.name) && names.filter((name) => name === t.name).length === 1 ? t.name : t.id,
      );
    }
    const list = LISTS[kind];
    return await inTenant(quiet, resolved, {}, tenant, ({ services, principal }) =>
      list(services, principal),
    );
  } catch {
    return [];
  }
}
