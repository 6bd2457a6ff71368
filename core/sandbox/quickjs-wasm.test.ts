import { describe, expect, it } from 'vitest';
import { QuickJsEngine } from './engine.ts';
import { sandboxLimits } from './limits.ts';
import type { RunMessage } from './protocol.ts';
import { compiledQuickJs } from './quickjs-wasm.ts';

const run = (runId: number): RunMessage => ({
  type: 'run',
  runId,
  code: 'module.exports = async (req) => ({ raw: req.args.n + 1 });',
  argsJson: '{"n":41}',
  configurationJson: '{}',
  hasSvc: false,
  checkOnly: false,
  limits: sandboxLimits({ timeoutMs: 5000, memoryBytes: 16 * 1024 * 1024 }),
});

describe('compiledQuickJs', () => {
  it('compiles once per process', async () => {
    const first = await compiledQuickJs();
    expect(first).toBeDefined();
    expect(await compiledQuickJs()).toBe(first);
  });

  it('runs code the same as QuickJS compiled from the package', async () => {
    const shared = new QuickJsEngine(() => undefined, await compiledQuickJs());
    const own = new QuickJsEngine(() => undefined);
    const [a, b] = await Promise.all([shared.run(run(1)), own.run(run(2))]);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ kind: 'report' });
    expect(JSON.stringify(a)).toContain('42');
  });
});
