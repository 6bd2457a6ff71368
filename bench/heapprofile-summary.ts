/**
 * Summarises a sampling heap profile (`.heapprofile`, e.g. from BENCH_HEAP_PROFILE, see
 * bench/support/profiling.ts): the functions that allocated the most bytes (self, and with their
 * callees), optionally per request. `node --import tsx bench/heapprofile-summary.ts <file> [top] [requests]`.
 */
import { readFileSync } from 'node:fs';

interface HeapNode {
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly selfSize: number;
  readonly children: readonly HeapNode[];
}

const [file, topArg = '30', requestsArg] = process.argv.slice(2);
if (!file) throw new Error('usage: heapprofile-summary.ts <file.heapprofile> [top] [requests]');
const head = (JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode }).head;
const top = Number(topArg);
const requests = requestsArg === undefined ? null : Number(requestsArg);

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const nameOf = (n: HeapNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/node_modules\//, '~').replace(/^file:\/\/.*?\/(core|server|bench|cli)\//, '$1/')}`.trim();

/** Bytes allocated under `node`; each function counted once per stack for its inclusive total. */
function walk(node: HeapNode, onStack: Set<string>): number {
  const name = nameOf(node);
  let total = node.selfSize;
  self.set(name, (self.get(name) ?? 0) + node.selfSize);
  const fresh = !onStack.has(name);
  if (fresh) onStack.add(name);
  for (const child of node.children) total += walk(child, onStack);
  if (fresh) {
    onStack.delete(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + total);
  }
  return total;
}
const all = walk(head, new Set());
const line = (bytes: number, name: string) =>
  `${(bytes / 1024 / 1024).toFixed(1).padStart(8)} MiB ${((bytes / all) * 100).toFixed(1).padStart(5)} %${
    requests ? `${(bytes / requests).toFixed(0).padStart(8)} B/req` : ''
  }  ${name}`;
console.log(line(all, '(all sampled allocations)'));
console.log('\ntop self:');
for (const [name, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(line(bytes, name));
console.log('\ntop inclusive:');
for (const [name, bytes] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(line(bytes, name));
