#!/usr/bin/env node
// The `svc` binary: the bundled CLI when `npm start` or `npm run build` made an up-to-date one
// (fast start, see compiled.js), else the TypeScript sources through tsx (works straight after `npm ci`). main()
// returns the exit code (0 ok, 1 error, 2 usage/cancel, 3 unavailable, 4 auth/locked); setting exitCode instead of
// calling exit() lets output drain.
import { compiledMain } from './compiled.js';
import { reexecForServing } from './server-runtime.js';

// The serving verbs run with the serving runtime (server-runtime.js), before anything is loaded.
const verb = process.argv[2];
if (verb === 'start' || verb === 'serve') reexecForServing();

const compiled = compiledMain();
let main;
if (compiled !== undefined) {
  ({ main } = await import(compiled.href));
} else {
  await import('./register-tsx.js');
  ({ main } = await import('../main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
// The HTTP client keeps its connection to a server alive, which would hold the process for a
// hundred milliseconds or more after the answer is printed: leave as soon as the output is flushed.
await Promise.all(
  [process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write('', done))),
);
process.exit();
