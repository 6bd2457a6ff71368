/**
 * A global setup whose teardown prints the CPU seconds of Vitest's main process (the one that
 * schedules the files, transforms the modules and reports), apart from its workers: their CPU is
 * what file-cpu-setup.ts records.
 */
export default function setup(): () => void {
  return () => {
    const usage = process.cpuUsage();
    const seconds = (usage.user + usage.system) / 1e6;
    console.log(`vitest main process: ${seconds.toFixed(1)} CPU s in ${process.uptime().toFixed(1)} s`);
  };
}
