import { describe, expect, it } from 'vitest';
import { NODE_V8_POOL_SIZE, servingNodeOptions, servingV8PoolSize } from './server-runtime.js';

describe('servingV8PoolSize', () => {
  it('is half the cores, at least one, at most Node’s own pool', () => {
    expect([1, 2, 3, 4, 5, 6, 8, 16, 64].map(servingV8PoolSize)).toEqual([1, 1, 1, 2, 2, 3, 4, 4, 4]);
    expect(servingV8PoolSize(128)).toBe(NODE_V8_POOL_SIZE);
  });
});

describe('servingNodeOptions', () => {
  const runtime = { execArgv: [] as string[], nodeOptions: undefined as string | undefined, cores: 2 };

  it('adds the pool size on a machine with fewer than eight cores', () => {
    expect(servingNodeOptions(runtime)).toEqual(['--v8-pool-size=1']);
    expect(servingNodeOptions({ ...runtime, cores: 4, execArgv: ['--import', 'tsx'] })).toEqual([
      '--v8-pool-size=2',
    ]);
  });

  it('adds nothing where the pool would be Node’s own', () => {
    expect(servingNodeOptions({ ...runtime, cores: 8 })).toEqual([]);
    expect(servingNodeOptions({ ...runtime, cores: 32 })).toEqual([]);
  });

  it('keeps a pool size the operator chose, on the command line or in NODE_OPTIONS', () => {
    expect(servingNodeOptions({ ...runtime, execArgv: ['--v8-pool-size=3'] })).toEqual([]);
    expect(servingNodeOptions({ ...runtime, execArgv: ['--v8-pool-size', '3'] })).toEqual([]);
    expect(
      servingNodeOptions({ ...runtime, nodeOptions: '--max-old-space-size=512 --v8-pool-size=4' }),
    ).toEqual([]);
  });

  it('is not fooled by other options that merely start alike', () => {
    expect(servingNodeOptions({ ...runtime, nodeOptions: '--v8-pool-sizes=2' })).toEqual([
      '--v8-pool-size=1',
    ]);
  });
});
