import { VaultError } from '../../core/errors/catalogue.ts';
import type { Writer } from '../runtime/deps.ts';

/**
 * Standard output that can be switched to collect what a command writes instead, so `--jq` can
 * filter the command's JSON after it ran (commands write through `writeJson` as usual).
 */
export interface CapturingWriter extends Writer {
  capture(): void;
  /** What was written since `capture()`, or undefined when not capturing. */
  captured(): string | undefined;
}

export function capturingWriter(out: Writer): CapturingWriter {
  let buffer: string[] | undefined;
  return {
    write(text) {
      if (buffer === undefined) out.write(text);
      else buffer.push(text);
    },
    // While capturing this is a pipe: writeJson prints one compact document per line.
    get isTTY() {
      return buffer === undefined && out.isTTY;
    },
    get columns() {
      return out.columns;
    },
    capture() {
      buffer = [];
    },
    captured() {
      return buffer?.join('');
    },
  };
}

/**
 * Runs a jq expression over JSON documents and returns jq's output, strings raw (`-r`), as `gh --jq`
 * does. jq itself (WebAssembly, the `jq-wasm` package) is loaded only for `--jq`, so other commands
 * do not pay for it. A jq error is a usage error with jq's own first line.
 */
export async function filterWithJq(json: string, expression: string): Promise<string> {
  const jq = await import('jq-wasm');
  // The Emscripten runtime sets process.exitCode when jq fails; the CLI chooses its exit code itself.
  const exitCode = process.exitCode;
  try {
    return await jq.raw(json, expression, ['-r']);
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    throw new VaultError('USAGE', `--jq: ${reason.replace(/^jq: error(?: \(at [^)]*\))?: /, '')}`);
  } finally {
    process.exitCode = exitCode;
  }
}
