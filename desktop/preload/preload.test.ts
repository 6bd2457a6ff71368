import { readFileSync } from 'node:fs';
import { createContext, runInContext } from 'node:vm';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DESKTOP_API } from '../main/ipc-contract.ts';

const source = readFileSync(new URL('./preload.cts', import.meta.url), 'utf8');

/** Runs the preload as Electron's sandbox would: CommonJS, with `require` answering only `electron`. */
function loadPreload() {
  const exposed = new Map<string, unknown>();
  const invoked: unknown[][] = [];
  const required: string[] = [];
  const electronStub = {
    contextBridge: { exposeInMainWorld: (name: string, api: unknown) => exposed.set(name, api) },
    ipcRenderer: {
      invoke: (...args: unknown[]) => {
        invoked.push(args);
        return Promise.resolve('answer');
      },
    },
  };
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const module = { exports: {} };
  const context = createContext({
    module,
    exports: module.exports,
    require: (name: string) => {
      required.push(name);
      if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
      return electronStub;
    },
  });
  runInContext(js, context);
  return { exposed, invoked, required };
}

describe('preload', () => {
  it('exposes exactly the documented API under window.svcDesktop, and nothing else', () => {
    const { exposed, required } = loadPreload();
    expect([...exposed.keys()]).toEqual(['svcDesktop']);
    const api = exposed.get('svcDesktop') as Record<string, unknown>;
    expect(Object.keys(api).sort()).toEqual(Object.keys(DESKTOP_API).sort());
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
    expect(Object.isFrozen(api)).toBe(true);
    expect(required).toEqual(['electron']);
  });

  it('binds each method to its channel and passes at most the one argument', async () => {
    const { exposed, invoked } = loadPreload();
    const api = exposed.get('svcDesktop') as Record<string, (argument?: unknown) => Promise<unknown>>;
    for (const [method, channel] of Object.entries(DESKTOP_API)) {
      invoked.length = 0;
      await expect(api[method]!()).resolves.toBe('answer');
      expect(invoked).toEqual([[channel]]);
      invoked.length = 0;
      await api[method]!({ path: '/x' });
      expect(invoked).toEqual([[channel, { path: '/x' }]]);
    }
  });

  it('never hands the page ipcRenderer or a way to name a channel', () => {
    expect(source).not.toMatch(/exposeInMainWorld\([^)]*ipcRenderer/);
    const { exposed } = loadPreload();
    const api = exposed.get('svcDesktop') as Record<string, unknown>;
    expect(Object.keys(api)).not.toContain('invoke');
    expect(Object.keys(api)).not.toContain('ipcRenderer');
  });
});
