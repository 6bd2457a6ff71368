#!/usr/bin/env node
// Runs a TypeScript file with tsx registered: `node cli/bin/run-ts.js bench/run.ts [args…]`.
// The script sees its own arguments in process.argv.slice(2), as if it had been run directly.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import './register-tsx.js';

const [script, ...rest] = process.argv.slice(2);
if (script === undefined) {
  process.stderr.write('usage: node cli/bin/run-ts.js <file.ts> [args...]\n');
  process.exitCode = 2;
} else {
  process.argv = [process.argv[0] ?? 'node', path.resolve(script), ...rest];
  await import(pathToFileURL(path.resolve(script)).href);
}
