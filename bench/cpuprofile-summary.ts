/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof` or the inspector's Profiler): the functions
 * with the most self time and the most inclusive time, and self time summed by module (a file of
 * ours, a package, a Node module, native code, each WebAssembly module), each as milliseconds and
 * as a share of the busy (non-idle) time. Run directly: `node --import tsx bench/cpuprofile-summary.ts <file | folder of profiles> [top] [perUnits]`
 * (`perUnits`: divide the milliseconds by this many requests as well).
 *
 * `SVC_PROFILE_BY_SAMPLES=1` gives every sample the same weight (the profile's mean interval)
 * instead of its own time delta: on a loaded machine a sample taken late carries the time the
 * thread waited for a core, and lands on whatever it was doing when it was descheduled (often a
 * system call that woke another thread: `writeBuffer`, `writeUtf8String`). Counting samples
 * spreads those waits evenly; the busy and idle totals stay the same.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface FunctionTime {
  readonly name: string;
  readonly selfMs: number;
  readonly totalMs: number;
}

export interface ProfileSummary {
  readonly busyMs: number;
  readonly idleMs: number;
  readonly functions: readonly FunctionTime[];
  /** Self time summed by the module the code lives in (`moduleName`). */
  readonly modules: ReadonlyMap<string, number>;
}

/** Names that stand for no JavaScript work of ours. */
const IDLE = new Set(['(idle)', '(program)']);

function frameName(frame: CallFrame): string {
  const file = frame.url.startsWith('file://')
    ? relative(process.cwd(), new URL(frame.url).pathname)
    : frame.url;
  const where = file ? ` ${file.replace(/^node_modules\//, '~')}:${frame.lineNumber + 1}` : '';
  return `${frame.functionName || '(anonymous)'}${where}`;
}

/**
 * The module a frame's code lives in: a file of ours by its path, a package by its name (`~name`),
 * a Node module by its id; code V8 runs without a file as `(native)`, or `(wasm <id>)` per
 * WebAssembly module (sql.js and libsodium each have one).
 */
export function moduleName(frame: CallFrame): string {
  if (frame.url.startsWith('wasm://')) return `(wasm ${frame.url.split('/').pop()})`;
  if (frame.url === '') return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (frame.url.startsWith('node:')) return frame.url;
  const file = frame.url.startsWith('file://')
    ? relative(process.cwd(), new URL(frame.url).pathname)
    : frame.url;
  const inPackage = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  return inPackage ? `~${inPackage[1]}` : file;
}

/** Each sample's weight in ms: its own delta, or with SVC_PROFILE_BY_SAMPLES the mean of all. */
function sampleWeights(profile: CpuProfile): (i: number) => number {
  if (process.env.SVC_PROFILE_BY_SAMPLES !== '1') return (i) => (profile.timeDeltas[i] ?? 0) / 1000;
  const mean = profile.timeDeltas.reduce((sum, d) => sum + d, 0) / 1000 / Math.max(1, profile.samples.length);
  return () => mean;
}

export function summariseProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const modules = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  const weight = sampleWeights(profile);
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = weight(i);
    let id: number | undefined = profile.samples[i]!;
    const leaf = byId.get(id)!;
    const leafName = frameName(leaf.callFrame);
    if (IDLE.has(leaf.callFrame.functionName)) {
      idle += delta;
      continue;
    }
    busy += delta;
    self.set(leafName, (self.get(leafName) ?? 0) + delta);
    const module = moduleName(leaf.callFrame);
    modules.set(module, (modules.get(module) ?? 0) + delta);
    // Inclusive: each function once per sample, however deep it recurses.
    const seen = new Set<string>();
    while (id !== undefined) {
      const name = frameName(byId.get(id)!.callFrame);
      if (!seen.has(name)) {
        seen.add(name);
        total.set(name, (total.get(name) ?? 0) + delta);
      }
      id = parent.get(id);
    }
  }
  const functions = [...total.keys()].map((name) => ({
    name,
    selfMs: self.get(name) ?? 0,
    totalMs: total.get(name) ?? 0,
  }));
  return { busyMs: busy, idleMs: idle, functions, modules };
}

/**
 * Where the time under `focus` goes: for every sample with a frame whose name starts with `focus`,
 * its time is given to the frame directly below the outermost such frame (or to `focus` itself
 * when that frame is the leaf).
 */
export function focusProfile(profile: CpuProfile, focus: string): Map<string, number> {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const below = new Map<string, number>();
  const weight = sampleWeights(profile);
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = weight(i);
    const stack: string[] = [];
    for (let id: number | undefined = profile.samples[i]!; id !== undefined; id = parent.get(id))
      stack.push(frameName(byId.get(id)!.callFrame));
    let at = -1;
    for (let j = stack.length - 1; j >= 0; j--) {
      if (stack[j]!.startsWith(focus)) {
        at = j;
        break;
      }
    }
    if (at < 0) continue;
    const name = at === 0 ? '(self)' : stack[at - 1]!;
    below.set(name, (below.get(name) ?? 0) + delta);
  }
  return below;
}

export function formatSummary(summary: ProfileSummary, top: number, units?: number): string {
  const lines: string[] = [];
  const pct = (ms: number) => `${((100 * ms) / summary.busyMs).toFixed(1).padStart(5)} %`;
  const per = (ms: number) => (units ? ` ${((1000 * ms) / units).toFixed(1).padStart(7)} µs/req` : '');
  lines.push(
    `busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms` +
      (units
        ? `, ${units} requests: ${((1000 * summary.busyMs) / units).toFixed(0)} µs busy per request`
        : ''),
  );
  const row = (ms: number, name: string) => `${ms.toFixed(0).padStart(7)} ms ${pct(ms)}${per(ms)}  ${name}`;
  lines.push('', 'top self time:');
  for (const f of [...summary.functions].sort((a, b) => b.selfMs - a.selfMs).slice(0, top))
    lines.push(row(f.selfMs, f.name));
  lines.push('', 'top inclusive time:');
  for (const f of [...summary.functions].sort((a, b) => b.totalMs - a.totalMs).slice(0, top))
    lines.push(row(f.totalMs, f.name));
  lines.push('', 'self time by module:');
  for (const [name, ms] of [...summary.modules].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(row(ms, name));
  return lines.join('\n');
}

/** The profile in `path`, or every `.cpuprofile` in the folder `path`. */
function profilesAt(path: string): CpuProfile[] {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(path, f))
    : [path];
  return files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as CpuProfile);
}

/** Several profiles' summaries as one: their times added up by function. */
export function addSummaries(summaries: readonly ProfileSummary[]): ProfileSummary {
  const byName = new Map<string, { selfMs: number; totalMs: number }>();
  const modules = new Map<string, number>();
  for (const s of summaries) {
    for (const [name, ms] of s.modules) modules.set(name, (modules.get(name) ?? 0) + ms);
    for (const f of s.functions) {
      const sum = byName.get(f.name) ?? { selfMs: 0, totalMs: 0 };
      sum.selfMs += f.selfMs;
      sum.totalMs += f.totalMs;
      byName.set(f.name, sum);
    }
  }
  return {
    busyMs: summaries.reduce((n, s) => n + s.busyMs, 0),
    idleMs: summaries.reduce((n, s) => n + s.idleMs, 0),
    functions: [...byName].map(([name, f]) => ({ name, ...f })),
    modules,
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const [file, top, units, focus] = process.argv.slice(2);
  if (!file)
    throw new Error('usage: cpuprofile-summary.ts <file.cpuprofile | folder> [top] [requests] [focus]');
  const profiles = profilesAt(file);
  if (focus) {
    const below = new Map<string, number>();
    for (const profile of profiles)
      for (const [name, ms] of focusProfile(profile, focus)) below.set(name, (below.get(name) ?? 0) + ms);
    const rows = [...below].sort((a, b) => b[1] - a[1]);
    const sum = rows.reduce((n, [, ms]) => n + ms, 0);
    process.stdout.write(`under ${focus}: ${sum.toFixed(0)} ms\n`);
    for (const [name, ms] of rows.slice(0, Number(top ?? 30)))
      process.stdout.write(
        `${ms.toFixed(0).padStart(7)} ms${units ? ` ${((1000 * ms) / Number(units)).toFixed(1).padStart(7)} µs/req` : ''}  ${name}\n`,
      );
    process.exit(0);
  }
  process.stdout.write(
    `${formatSummary(addSummaries(profiles.map(summariseProfile)), Number(top ?? 30), units ? Number(units) : undefined)}\n`,
  );
}
