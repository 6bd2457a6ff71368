/** The environment variable of the API key for --server. */
export const API_KEY_ENV = 'SVC_API_KEY';

/**
 * `svc --server URL --api-key KEY <command> …`: the connection flags given before the command, as
 * the environment variables they stand for (the same parsing and precedence as SVC_SERVER and
 * SVC_API_KEY), and the arguments without them. After the command they are its own flags.
 */
export function leadingConnectionFlags(argv: readonly string[]): {
  readonly argv: string[];
  readonly env: Record<string, string>;
} {
  const names: Readonly<Record<string, string>> = { '--server': 'SVC_SERVER', '--api-key': API_KEY_ENV };
  const env: Record<string, string> = {};
  let index = 0;
  while (index < argv.length) {
    const arg = argv[index] ?? '';
    const [flag = '', inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg];
    const variable = names[flag];
    if (variable === undefined) break;
    const value = inline ?? argv[index + 1];
    if (value === undefined) break;
    env[variable] = value;
    index += inline === undefined ? 2 : 1;
  }
  return { argv: argv.slice(index), env };
}
