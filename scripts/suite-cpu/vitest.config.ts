/**
 * The suite as `npm test` runs it, with each file's CPU recorded (file-cpu-setup.ts):
 * `SVC_SUITE_CPU_OUT=/tmp/cpu.jsonl npx vitest run --config scripts/suite-cpu/vitest.config.ts`
 * (any of Vitest's filters and options after it), then
 * `node --import tsx scripts/suite-cpu/summary.ts /tmp/cpu.jsonl`. Run from the repository's root.
 * At the end, Vitest's main process prints its own CPU (main-cpu-setup.ts).
 */
import { mergeConfig } from 'vitest/config';
import base from '../../vitest.config.ts';

export default mergeConfig(base, {
  test: {
    setupFiles: ['scripts/suite-cpu/file-cpu-setup.ts'],
    globalSetup: ['scripts/suite-cpu/main-cpu-setup.ts'],
  },
});
