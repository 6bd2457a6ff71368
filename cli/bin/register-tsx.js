// Shared by the launchers: lets plain `node` run the TypeScript sources directly (no build step), so
// `npx svc`, `npm start` and `npm run bench` work straight after `npm ci`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// Our own tsconfig, not whichever one sits in the caller's working directory.
const tsconfig = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));
register({ tsconfig: existsSync(tsconfig) ? tsconfig : false });
