import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { addSummaries, formatSummary, moduleName, summariseProfile } from './cpuprofile-summary.ts';
import type { CpuProfile } from './cpuprofile-summary.ts';

const here = (path: string) => pathToFileURL(join(process.cwd(), path)).href;
const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });

/** (root) → handler (ours) → stringify (a package) → wasm leaf; plus native, idle and GC leaves. */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 6, 7, 8] },
    { id: 2, callFrame: frame('handler', here('core/tokens/read.ts')), children: [3, 5] },
    { id: 3, callFrame: frame('stringify', here('node_modules/@scope/pkg/lib/x.js')), children: [4] },
    { id: 4, callFrame: frame('wasm-function[7]', 'wasm://wasm/00ab12cd'), children: [] },
    { id: 5, callFrame: frame('writeUtf8String', ''), children: [] },
    { id: 6, callFrame: frame('(idle)', ''), children: [] },
    { id: 7, callFrame: frame('(garbage collector)', ''), children: [] },
    { id: 8, callFrame: frame('emit', 'node:events'), children: [] },
  ],
  // 1 ms per sample.
  samples: [2, 3, 4, 4, 5, 6, 6, 7, 8, 2],
  timeDeltas: Array.from({ length: 10 }, () => 1000),
};

describe('cpuprofile summary', () => {
  it('names the module a frame lives in', () => {
    expect(moduleName(frame('f', here('core/a.ts')))).toBe('core/a.ts');
    expect(moduleName(frame('f', here('node_modules/sql.js/dist/sql-wasm.js')))).toBe('~sql.js');
    expect(moduleName(frame('f', here('node_modules/@scope/pkg/lib/x.js')))).toBe('~@scope/pkg');
    expect(moduleName(frame('f', 'node:internal/encoding'))).toBe('node:internal/encoding');
    expect(moduleName(frame('wasm-function[1]', 'wasm://wasm/002a0116'))).toBe('(wasm 002a0116)');
    expect(moduleName(frame('writev', ''))).toBe('(native)');
    expect(moduleName(frame('(garbage collector)', ''))).toBe('(garbage collector)');
  });

  it('sums self time by module, leaving idle time out', () => {
    const summary = summariseProfile(profile);
    expect(summary.busyMs).toBe(8);
    expect(summary.idleMs).toBe(2);
    expect(Object.fromEntries(summary.modules)).toEqual({
      'core/tokens/read.ts': 2,
      '~@scope/pkg': 1,
      '(wasm 00ab12cd)': 2,
      '(native)': 1,
      '(garbage collector)': 1,
      'node:events': 1,
    });
    const handler = summary.functions.find((f) => f.name.startsWith('handler'))!;
    expect(handler).toMatchObject({ selfMs: 2, totalMs: 6 });
  });

  it('adds modules across profiles and prints them per request', () => {
    const summary = addSummaries([summariseProfile(profile), summariseProfile(profile)]);
    expect(summary.modules.get('(wasm 00ab12cd)')).toBe(4);
    const text = formatSummary(summary, 3, 4);
    const byModule = text.slice(text.indexOf('self time by module:')).split('\n');
    expect(byModule).toHaveLength(4);
    expect(byModule[1]).toMatch(/4 ms .* 1000\.0 µs\/req {2}(core\/tokens\/read\.ts|\(wasm 00ab12cd\))$/);
  });
});
