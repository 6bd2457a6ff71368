import { run } from '../main.ts';
import { makeTestIo, type TestIo } from './harness.ts';

export interface RunningServer {
  readonly io: TestIo;
  readonly url: string;
  /** SIGTERM, then the exit code of `svc start`. */
  stop(): Promise<number>;
}

/** `svc start --port 0` in this process with `env`, once it prints its URL. */
export async function startServer(env: Readonly<Record<string, string | undefined>>): Promise<RunningServer> {
  const io = makeTestIo({ env });
  const exit = run(['start', '--port', '0'], io.deps);
  const early = exit.then((code) => {
    throw new Error(`svc start exited early with ${code}: ${io.stderr()}`);
  });
  const stdout = await Promise.race([io.waitForStdout((text) => text.includes('URL: ')), early]);
  const url = /^URL: (\S+)$/m.exec(stdout)?.[1] ?? '';
  return {
    io,
    url,
    stop: async () => {
      io.shutdown('SIGTERM');
      return exit;
    },
  };
}
