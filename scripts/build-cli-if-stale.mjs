// `npm start` and `npm run build:cli:if-stale`: bundles the CLI (scripts/build-cli.ts) unless the
// bundle in dist/svc is current, so the first `svc` command after `npm ci && npm start` runs the
// bundle. Plain JavaScript: deciding costs a few `stat` calls (cli/bin/compiled.js), not a TypeScript
// loader; only a stale or missing bundle starts the build.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compiledMain } from '../cli/bin/compiled.js';

if (compiledMain() === undefined) {
  const script = fileURLToPath(new URL('./build-cli.ts', import.meta.url));
  const built = spawnSync(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit' });
  process.exitCode = built.status ?? 1;
}
