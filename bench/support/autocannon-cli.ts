import { fileURLToPath } from 'node:url';

/** autocannon's command line, run with `process.execPath` in a process of its own. */
export const AUTOCANNON_CLI = fileURLToPath(
  new URL('../../node_modules/autocannon/autocannon.js', import.meta.url),
);

export interface CliLoad {
  readonly url: string;
  readonly method: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** The arguments after `process.execPath` for `load` at `connections` for `seconds`. */
export function autocannonArgs(load: CliLoad, connections: number, seconds: number, json = true): string[] {
  const args = [
    AUTOCANNON_CLI,
    ...(json ? ['--json'] : []),
    '-c',
    String(connections),
    '-d',
    String(seconds),
  ];
  args.push('-m', load.method);
  for (const [name, value] of Object.entries(load.headers ?? {})) args.push('-H', `${name}=${value}`);
  if (load.body !== undefined) args.push('-b', load.body);
  args.push(load.url);
  return args;
}
