import type { UnlockOutcome } from '../../bridge/desktop-bridge.ts';

/** Why an unlock or create failed, in one sentence, naming the process that holds the vault. */
export function refusalText(outcome: Extract<UnlockOutcome, { ok: false }>): string {
  const holder = outcome.holder;
  if (holder === undefined) return outcome.message;
  const serving = holder.url === undefined ? '' : `, serving ${holder.url}`;
  return `${outcome.message} It is held by process ${holder.pid} on ${holder.host} since ${holder.startedAt}${serving}.`;
}

/** The message of a refused bridge call, without Electron's "Error invoking remote method" prefix. */
export function bridgeErrorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/^Error invoking remote method '[^']+': (?:Error: )?/, '');
}
