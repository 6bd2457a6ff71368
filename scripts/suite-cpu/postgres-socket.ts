/**
 * One-row queries on one connection over TCP (127.0.0.1) and over the server's Unix socket,
 * alternating: the client's CPU (user and system) and the whole machine's busy CPU per query.
 * `node --import tsx scripts/suite-cpu/postgres-socket.ts [queries] [socket folder]`, defaults
 * 20000 and /var/run/postgresql (Debian's). Linux only (/proc/stat).
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';

const queries = Number(process.argv[2] ?? 20_000);
const socketFolder = process.argv[3] ?? '/var/run/postgresql';
/** USER_HZ is 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

function machineBusySeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user, nice, system, irq, softirq
  return (fields[0]! + fields[1]! + fields[2]! + fields[5]! + fields[6]!) / TICKS_PER_SECOND;
}

async function measure(host: string): Promise<void> {
  const client = new pg.Client({ host, port: 5432, user: 'postgres', database: 'test' });
  await client.connect();
  try {
    for (let i = 0; i < 500; i++) await client.query('select $1::int as x', [i]);
    const cpu = process.cpuUsage();
    const busy = machineBusySeconds();
    for (let i = 0; i < queries; i++) await client.query('select $1::int as x', [i]);
    const used = process.cpuUsage(cpu);
    const machine = machineBusySeconds() - busy;
    console.log(
      JSON.stringify({
        host,
        clientCpuMicrosPerQuery: Math.round((used.user + used.system) / queries),
        machineCpuMicrosPerQuery: Math.round((machine * 1e6) / queries),
      }),
    );
  } finally {
    await client.end();
  }
}

for (let round = 0; round < 2; round++) {
  await measure('127.0.0.1');
  await measure(socketFolder);
}
