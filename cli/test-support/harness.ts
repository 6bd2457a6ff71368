import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Env } from '../../core/config/index.ts';
import { VaultError } from '../../core/errors/catalogue.ts';
import {
  createOutboundClient,
  DEFAULT_OUTBOUND_SETTINGS,
  sandboxFetchFrom,
} from '../../core/outbound/index.ts';
import { createSandbox, type Sandbox } from '../../core/sandbox/index.ts';
import { createServices } from '../../core/services.ts';
import * as tenancy from '../../core/tenancy/bootstrap.ts';
import { FAST_KDF } from '../../core/test-support/temp-vault.ts';
import { unsyncedFs } from '../../core/test-support/unsynced-fs.ts';
import * as vault from '../../core/vault/index.ts';
import { startServer } from '../../server/listen.ts';
import type { CliDeps, Prompter, ServicesFactory, VaultApi, Writer } from '../runtime/deps.ts';
import { run } from '../main.ts';
import { askUntilValid } from '../prompts/prompter.ts';

/**
 * Real components everywhere (vault, tenancy, server); only the process edges are fakes: captured
 * output, a given env (process.env is never touched, so test files run in parallel), scripted prompt
 * answers, and a shutdown trigger in place of SIGINT. Passphrase vaults and user passwords use small
 * Argon2id limits.
 */

export type Answer = string | boolean | VaultError;

export interface TestIo {
  readonly deps: CliDeps;
  stdout(): string;
  stderr(): string;
  /** Every prompt message asked, in order. */
  readonly asked: string[];
  /** Why hidden-prompt answers were refused (each refusal asks again), in order. */
  readonly rejected: string[];
  /** Plays the part of SIGINT for a running `svc start`. */
  shutdown(signal?: string): void;
  /** Resolves with stdout once `predicate(stdout)` holds (the server is up, say), checked at each write. */
  waitForStdout(predicate: (text: string) => boolean, timeoutMs?: number): Promise<string>;
  /** The same for stderr (a warning printed while a command keeps running). */
  waitForStderr(predicate: (text: string) => boolean, timeoutMs?: number): Promise<string>;
}

export interface TestIoOptions {
  readonly env?: Env;
  readonly cwd?: string;
  readonly isTTY?: boolean;
  readonly answers?: readonly Answer[];
  readonly stdin?: string;
  readonly vault?: Partial<VaultApi>;
  /** Replaces the services factory (e.g. to keep hold of the services a running command uses). */
  readonly services?: ServicesFactory;
  /** Replaces the one-second sleep of polling loops (`svc logs --follow`). */
  readonly sleep?: CliDeps['sleep'];
}

interface Captured {
  readonly writer: Writer;
  text(): string;
  /** Resolves once `predicate` holds for the text written so far; rejects after `timeoutMs`. */
  waitFor(predicate: (text: string) => boolean, timeoutMs: number, context: () => string): Promise<string>;
}

function capture(isTTY: boolean): Captured {
  let buffer = '';
  const waiters = new Set<() => void>();
  return {
    writer: {
      write: (text) => {
        buffer += text;
        for (const check of [...waiters]) check();
      },
      isTTY,
    },
    text: () => buffer,
    // Checked at each write, not polled: the test goes on as soon as the line is out.
    waitFor: (predicate, timeoutMs, context) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out; ${context()}`));
        }, timeoutMs);
        const check = () => {
          if (!predicate(buffer)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(buffer);
        };
        waiters.add(check);
        check();
      }),
  };
}

/**
 * The sandbox of every in-process command in this process, with the default outbound settings as in
 * production (the CLI passes its services no sandbox or outbound options): each command's services
 * would start a pool of worker threads for its first formula check or run, which costs many times
 * the run itself on a started pool (`bench/quickjs-start.ts`). Every run starts from fresh code in
 * a worker either way. A command closes its services' sandbox when it ends; this one's close()
 * leaves the pool running, and the test worker's exit ends its threads.
 */
let sharedSandbox: Sandbox | undefined;
function commandSandbox(): Sandbox {
  sharedSandbox ??= createSandbox({
    fetch: sandboxFetchFrom(createOutboundClient(DEFAULT_OUTBOUND_SETTINGS)),
  });
  const pool = sharedSandbox;
  return {
    limits: pool.limits,
    checkModuleCode: (code, tenant) => pool.checkModuleCode(code, tenant),
    runModule: (request) => pool.runModule(request),
    close: async () => undefined,
  };
}

/** The services with fast password hashing (production keeps libsodium INTERACTIVE) and the shared sandbox. */
export const fastServices: ServicesFactory = async (vault, options = {}) =>
  createServices(vault, { ...options, passwordKdf: FAST_KDF }, { sandbox: commandSandbox() });

/** Resolves after `ms` or when `signal` aborts, like the real one. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * createVault and rekeyVault with fast KDF limits (production keeps MODERATE); vaults the commands
 * create or open skip fsync (unsynced-fs.ts): these tests are about the commands, not durability.
 */
export const fastVault: VaultApi = {
  ...vault,
  createVault: (options) => vault.createVault({ kdf: FAST_KDF, fs: unsyncedFs, ...options }),
  openVault: (options) => vault.openVault({ fs: unsyncedFs, ...options }),
  createVaultAt: (location, options) =>
    vault.createVaultAt(location, { kdf: FAST_KDF, fs: unsyncedFs, ...options }),
  openVaultAt: (location, options) => vault.openVaultAt(location, { fs: unsyncedFs, ...options }),
  rekeyVault: (options) => vault.rekeyVault({ kdf: FAST_KDF, ...options }),
};

function scriptedPrompter(answers: Answer[], asked: string[], rejected: string[]): Prompter {
  const next = (message: string): Answer => {
    asked.push(message);
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`unexpected prompt: ${message}`);
    if (answer instanceof VaultError) throw answer;
    return answer;
  };
  return {
    // Rejected answers are asked again, as at a terminal; each refusal is recorded.
    password: ({ message, validate }) =>
      askUntilValid(
        async () => String(next(message)),
        validate,
        (problem) => rejected.push(problem),
      ),
    input: async ({ message }) => String(next(message)),
    confirm: async ({ message }) => next(message) === true,
    select: async ({ message, choices }) => {
      const answer = String(next(message));
      const choice = choices.find((c) => c.value === answer);
      if (choice === undefined) throw new Error(`prompt answer '${answer}' is not one of the choices`);
      return choice.value;
    },
    // Answered as comma-separated values.
    checkbox: async ({ message, choices }) => {
      const picked = String(next(message))
        .split(',')
        .map((value) => value.trim())
        .filter((value) => value !== '');
      return picked.map((value) => {
        const choice = choices.find((c) => c.value === value);
        if (choice === undefined) throw new Error(`prompt answer '${value}' is not one of the choices`);
        return choice.value;
      });
    },
  };
}

export function makeTestIo(options: TestIoOptions = {}): TestIo {
  const isTTY = options.isTTY ?? false;
  const out = capture(false);
  const err = capture(false);
  const outputs = () => `stdout: ${out.text()} stderr: ${err.text()}`;
  const asked: string[] = [];
  const rejected: string[] = [];
  let release: (signal: string) => void = () => undefined;
  const shutdown = new Promise<string>((resolve) => {
    release = resolve;
  });
  const deps: CliDeps = {
    stdout: out.writer,
    stderr: err.writer,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    isTTY,
    prompter: scriptedPrompter([...(options.answers ?? [])], asked, rejected),
    readStdin: async () => options.stdin ?? '',
    clock: { now: () => new Date() },
    vault: { ...fastVault, ...options.vault },
    tenancy,
    services: options.services ?? fastServices,
    startServer,
    waitForShutdown: () => shutdown,
    sleep: options.sleep ?? sleep,
  };
  return {
    deps,
    stdout: out.text,
    stderr: err.text,
    asked,
    rejected,
    shutdown: (signal = 'SIGINT') => release(signal),
    waitForStdout: (predicate, timeoutMs = 20_000) => out.waitFor(predicate, timeoutMs, outputs),
    waitForStderr: (predicate, timeoutMs = 20_000) => err.waitFor(predicate, timeoutMs, outputs),
  };
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly asked: readonly string[];
  readonly rejected: readonly string[];
}

/** Runs `svc <args>` in-process to completion. */
export async function runSvc(args: readonly string[], options: TestIoOptions = {}): Promise<CliResult> {
  const io = makeTestIo(options);
  const code = await run(args, io.deps);
  return { code, stdout: io.stdout(), stderr: io.stderr(), asked: io.asked, rejected: io.rejected };
}

export interface TempHome {
  readonly dir: string;
  /** `{ SVC_HOME: dir }` plus `extra`. */
  env(extra?: Env): Env;
  cleanup(): Promise<void>;
}

export async function makeTempHome(): Promise<TempHome> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-cli-'));
  // A sub-folder, so commands must create the home themselves (as on a first run).
  const home = path.join(dir, 'home');
  return {
    dir: home,
    env: (extra = {}) => ({ SVC_HOME: home, ...extra }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export function randomBase64Key(): string {
  return randomBytes(32).toString('base64');
}
