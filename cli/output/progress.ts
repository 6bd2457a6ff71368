import cliProgress from 'cli-progress';
import type { CliDeps } from '../runtime/deps.ts';

/** Progress of bulk work; a no-op where nobody watches (pipes, files, CI). */
export interface Progress {
  increment(count: number): void;
  stop(): void;
}

const SILENT: Progress = { increment: () => undefined, stop: () => undefined };

/**
 * A progress bar on stderr, only when stderr is a terminal: stdout stays clean for the result
 * (`--json > out.json`), and logs never fill with redraws. The bar is removed when done.
 */
export function startProgress(deps: CliDeps, total: number, unit: string): Progress {
  if (!deps.stderr.isTTY || total === 0) return SILENT;
  // cli-progress writes through a stream; the injected writer plays one (readline's cursor
  // moves are writes of escape codes; width falls back to 80 columns).
  const stream = {
    isTTY: true,
    write: (text: string): boolean => {
      deps.stderr.write(text);
      return true;
    },
  };
  const bar = new cliProgress.SingleBar(
    {
      stream: stream as unknown as NodeJS.WritableStream,
      format: `{bar} {percentage}% | {value}/{total} ${unit} | ETA {eta_formatted}`,
      hideCursor: true,
      clearOnComplete: true,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  let stopped = false;
  return {
    increment: (count) => bar.increment(count),
    stop: () => {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}

/**
 * A progress bar fed with running totals (`done` of `total` so far), as bulk copies report them:
 * started on the first report, when the total is known.
 */
export function runningProgress(
  deps: CliDeps,
  unit: string,
): Progress & { report(done: number, total: number): void } {
  let bar: Progress | undefined;
  let shown = 0;
  return {
    report(done, total) {
      bar ??= startProgress(deps, total, unit);
      bar.increment(done - shown);
      shown = done;
    },
    increment: (count) => bar?.increment(count),
    stop: () => bar?.stop(),
  };
}
