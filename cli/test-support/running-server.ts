import { run } from '../main.ts';
import { makeTestIo, type TestIo } from './harness.ts';

export interface RunningServer {
  readonly io: TestIo;
  readonly url: string;
  /** The management key a first `--json` run shows, once; undefined otherwise. */
  readonly apiKey: string | undefined;
  /** SIGTERM, then the exit code of the command. */
  stop(): Promise<number>;
}

/**
 * `svc <args>` (default `start --port 0`) in this process with `env`, once it says where it
 * serves: the `URL: …` line, or with `--json` the first JSON line.
 */
export async function startServer(
  env: Readonly<Record<string, string | undefined>>,
  args: readonly string[] = ['start', '--port', '0'],
): Promise<RunningServer> {
  const io = makeTestIo({ env });
  const exit = run([...args], io.deps);
  // If the command fails instead of serving, surface its exit code rather than timing out.
  const early = exit.then((code) => {
    throw new Error(`svc ${args[0]} exited early with ${code}: ${io.stderr()}`);
  });
  const stdout = await Promise.race([
    io.waitForStdout((text) => text.includes('URL: ') || (text.startsWith('{') && text.includes('\n'))),
    early,
  ]);
  const json = stdout.startsWith('{')
    ? (JSON.parse(stdout.split('\n')[0] ?? '') as { url: string; api_key?: string })
    : undefined;
  return {
    io,
    url: json?.url ?? /^URL: (\S+)$/m.exec(stdout)?.[1] ?? '',
    apiKey: json?.api_key,
    stop: async () => {
      io.shutdown('SIGTERM');
      return exit;
    },
  };
}
