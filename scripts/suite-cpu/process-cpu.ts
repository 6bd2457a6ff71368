/**
 * Runs a command and prints the CPU seconds every process of the machine spent meanwhile, by kind:
 * Vitest's main process and its workers, `svc` children, Chromium by process type, PostgreSQL, and
 * everything else by name (the host's own services and kernel threads too), as JSON lines, largest
 * first. It reads /proc every half second and keeps each process's last user + system time (minus
 * what it had at the start), so a process that lives less than half a second is missed: compare the
 * total with `machine-cpu.sh`'s. Linux only. From the repository's root:
 *   node --import tsx scripts/suite-cpu/process-cpu.ts npx vitest run
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;
const SAMPLE_MS = 500;

interface Seen {
  readonly kind: string;
  readonly startTicks: number;
  ticks: number;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** What a process is, from its command line (or its name when it has none: a kernel thread). */
function kindOf(pid: string, comm: string): string {
  const cmd = (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ');
  if (cmd === '') return `kernel or unnamed: ${comm}`;
  if (cmd.startsWith('postgres') || cmd.includes('/postgresql/')) return 'postgresql';
  if (cmd.includes('chrom')) {
    const type = /--type=(\S+)/.exec(cmd)?.[1] ?? 'browser';
    return `chromium ${type}`;
  }
  if (cmd.includes('vitest/dist/workers') || cmd.includes('forks.js')) return 'vitest worker';
  if (cmd.includes('vitest')) return 'vitest main';
  if (cmd.includes('crash-writer')) return 'crash writer';
  if (cmd.includes('svc.js') || cmd.includes('/svc ')) return 'svc child';
  if (cmd.includes('esbuild')) return 'esbuild';
  // Names only, never arguments: a command line may carry a key or a URL with a password.
  const words = cmd.split(' ').filter((word) => word !== '');
  const program = words[0]?.split('/').pop() ?? comm;
  if (program !== 'node') return program;
  const script = words.slice(1).find((word) => /\.[cm]?[jt]s$/.test(word));
  return `node ${script?.split('/').pop() ?? ''}`.trim();
}

const seen = new Map<string, Seen>();
let first = true;

function sample(): void {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = read(`/proc/${pid}/stat`);
    if (stat === undefined) continue;
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const known = seen.get(pid);
    if (known !== undefined) known.ticks = ticks;
    else seen.set(pid, { kind: kindOf(pid, comm), startTicks: first ? ticks : 0, ticks });
  }
  first = false;
}

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error('usage: process-cpu.ts <command> [args…]');
  process.exit(2);
}
sample();
const timer = setInterval(sample, SAMPLE_MS);
const started = performance.now();
const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'ignore'] });
child.on('exit', (code) => {
  clearInterval(timer);
  sample();
  const byKind = new Map<string, { seconds: number; processes: number }>();
  for (const { kind, startTicks, ticks } of seen.values()) {
    const spent = (ticks - startTicks) / TICKS_PER_SECOND;
    if (spent <= 0) continue;
    const entry = byKind.get(kind) ?? { seconds: 0, processes: 0 };
    entry.seconds += spent;
    entry.processes += 1;
    byKind.set(kind, entry);
  }
  const rows = [...byKind].sort((a, b) => b[1].seconds - a[1].seconds);
  const total = rows.reduce((sum, [, e]) => sum + e.seconds, 0);
  for (const [kind, e] of rows) {
    if (e.seconds < 0.5) continue;
    console.log(
      JSON.stringify({ kind, cpuSeconds: Math.round(e.seconds * 10) / 10, processes: e.processes }),
    );
  }
  console.log(
    JSON.stringify({
      totalSampledCpuSeconds: Math.round(total * 10) / 10,
      wallSeconds: Math.round((performance.now() - started) / 100) / 10,
      exitCode: code,
    }),
  );
  process.exitCode = code ?? 1;
});
