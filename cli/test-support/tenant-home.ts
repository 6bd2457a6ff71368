import { cp, mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import type { ApplicationType } from '../../core/access/permissions.ts';
import type { Tenant } from '../../core/services-contract.ts';
import { expectOk } from './expect.ts';
import { makeTempHome, runSvc, type TempHome } from './harness.ts';

/** One `svc` command a prepared home was made with: its arguments, and its stdin when it reads one. */
export interface HomeStep {
  readonly args: readonly string[];
  readonly stdin?: string;
}

export interface PreparedHome {
  readonly home: TempHome;
  /** Each step's stdout, in order (the tenant or application a step created, say). */
  readonly outputs: readonly string[];
}

/** Homes this process has made, by their steps: each test gets a copy. */
const templates = new Map<string, Promise<{ readonly dir: string; readonly outputs: readonly string[] }>>();

async function runSteps(home: TempHome, steps: readonly HomeStep[]): Promise<string[]> {
  const outputs: string[] = [];
  for (const step of steps) {
    const result = await runSvc(step.args, {
      env: home.env(),
      ...(step.stdin === undefined ? {} : { stdin: step.stdin }),
    });
    expectOk(result);
    outputs.push(result.stdout);
  }
  return outputs;
}

/**
 * A temp home in the state `steps` leave it in (the first is usually `svc init`). Running `svc
 * init` and a tenant's creation in every test would cost more CPU than most command tests; each
 * process runs each list of steps once, in a home under the folder SVC_TEST_NEW_VAULTS names
 * (core/test-support/new-vaults-setup.ts removes it), and every test gets a copy of that home's
 * files: a folder, vault and lock of its own, with the same rows and the same key file as the
 * others. The copies share the vault id, key and the ids and secrets the steps made, which no
 * command test compares across homes, and the steps' times (minutes early at most), which no
 * command test looks at; tests about `svc init` itself, or needing a key of their own, run the
 * commands. Without the folder, each test runs the steps in its own home.
 */
export async function preparedHome(steps: readonly HomeStep[]): Promise<PreparedHome> {
  const home = await makeTempHome();
  try {
    return { home, outputs: await prepareHome(home, steps) };
  } catch (error) {
    await home.cleanup();
    throw error;
  }
}

/** Brings `home`, made by makeTempHome and not used yet, to the state `steps` leave it in (see preparedHome). */
export async function prepareHome(home: TempHome, steps: readonly HomeStep[]): Promise<readonly string[]> {
  const root = process.env.SVC_TEST_NEW_VAULTS;
  if (root === undefined) return runSteps(home, steps);
  const template = await templateHome(root, steps);
  // A closed vault leaves no lock; a stale one would name this process as the holder.
  await cp(template.dir, home.dir, { recursive: true, filter: (source) => !source.endsWith('.lock') });
  return template.outputs;
}

function templateHome(
  root: string,
  steps: readonly HomeStep[],
): Promise<{ readonly dir: string; readonly outputs: readonly string[] }> {
  const key = JSON.stringify(steps);
  let template = templates.get(key);
  if (template === undefined) {
    template = (async () => {
      const dir = path.join(await mkdtemp(path.join(root, 'home-')), 'home');
      const home: TempHome = {
        dir,
        env: (extra = {}) => ({ SVC_HOME: dir, ...extra }),
        cleanup: async () => undefined,
      };
      return { dir, outputs: await runSteps(home, steps) };
    })();
    templates.set(key, template);
    // A failed template is not kept: the next test tries again.
    template.catch(() => templates.delete(key));
  }
  return template;
}

/** `svc init` with a generated key file. */
export const INIT: HomeStep = { args: ['init'] };

/** `svc tenant create --name <name> --owner-email <email> --json` (the first tenant is the default). */
export function tenantCreate(name: string, ownerEmail: string, ownerPassword?: string): HomeStep {
  const args = ['tenant', 'create', '--name', name, '--owner-email', ownerEmail, '--json'];
  return ownerPassword === undefined
    ? { args }
    : { args: [...args, '--owner-password-stdin'], stdin: ownerPassword };
}

/**
 * `svc app create --name <name> --type <type> --permission <p>… --json`: an application of the
 * default tenant (its key in the output, shown once).
 */
export function appCreate(name: string, type: ApplicationType, ...permissions: string[]): HomeStep {
  const granted = permissions.flatMap((permission) => ['--permission', permission]);
  return { args: ['app', 'create', '--name', name, '--type', type, ...granted, '--json'] };
}

/** The tenant a `tenantCreate` step printed. */
export const createdTenant = (stdout: string): Tenant => (JSON.parse(stdout) as { tenant: Tenant }).tenant;

export interface TenantHome {
  readonly home: TempHome;
  readonly tenant: Tenant;
}

export interface TenantHomeOptions {
  /** The owner's email: `owner@example.com` unless given. */
  readonly ownerEmail?: string;
  /** The owner's password: none unless given. */
  readonly ownerPassword?: string;
}

/** A temp home after `svc init` (a generated key file), with no tenant yet. */
export async function makeInitHome(): Promise<TempHome> {
  return (await preparedHome([INIT])).home;
}

/** `home` (made by makeTempHome, not used yet) as `svc init` leaves it, with a generated key file. */
export async function initHome(home: TempHome): Promise<void> {
  await prepareHome(home, [INIT]);
}

/**
 * Where most command tests start: a temp home after `svc init`, with one tenant `Acme` whose owner
 * is `ownerEmail`, with `ownerPassword` when given.
 */
export async function makeTenantHome(options: TenantHomeOptions = {}): Promise<TenantHome> {
  const { home, outputs } = await preparedHome([
    INIT,
    tenantCreate('Acme', options.ownerEmail ?? 'owner@example.com', options.ownerPassword),
  ]);
  return { home, tenant: createdTenant(outputs[1] ?? '') };
}
