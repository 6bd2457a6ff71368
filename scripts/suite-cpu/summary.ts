/**
 * Sums the lines file-cpu-setup.ts wrote: `node --import tsx scripts/suite-cpu/summary.ts <file.jsonl> [top]`
 * prints the CPU and wall seconds of every group of files (first folder, two for core/) per backend,
 * then the `top` files by CPU (default 25).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface FileCpu {
  readonly file: string;
  readonly backend: string;
  readonly cpuSeconds: number;
  readonly wallSeconds: number;
}

const [path, topArg = '25'] = process.argv.slice(2);
if (path === undefined) {
  console.error('usage: summary.ts <file.jsonl> [top]');
  process.exit(2);
}
const rows = readFileSync(path, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as FileCpu)
  .map((row) => ({ ...row, file: relative(process.cwd(), row.file) }));

const groupOf = (file: string): string => {
  const parts = file.split('/');
  return parts[0] === 'core' ? parts.slice(0, 2).join('/') : (parts[0] ?? file);
};
const groups = new Map<string, { cpu: number; wall: number; files: number }>();
for (const row of rows) {
  const key = `${row.backend}:${groupOf(row.file)}`;
  const group = groups.get(key) ?? { cpu: 0, wall: 0, files: 0 };
  group.cpu += row.cpuSeconds;
  group.wall += row.wallSeconds;
  group.files += 1;
  groups.set(key, group);
}
const total = rows.reduce((sum, row) => sum + row.cpuSeconds, 0);
console.log(`${rows.length} files, ${total.toFixed(1)} CPU s inside them`);
for (const [key, group] of [...groups].sort((a, b) => b[1].cpu - a[1].cpu)) {
  console.log(
    `${group.cpu.toFixed(1).padStart(7)} CPU s ${group.wall.toFixed(1).padStart(7)} s  ${group.files} files  ${key}`,
  );
}
console.log('');
for (const row of [...rows].sort((a, b) => b.cpuSeconds - a.cpuSeconds).slice(0, Number(topArg))) {
  console.log(
    `${row.cpuSeconds.toFixed(2).padStart(7)} CPU s ${row.wallSeconds.toFixed(1).padStart(7)} s  ${row.backend}:${row.file}`,
  );
}
