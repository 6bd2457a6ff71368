#!/usr/bin/env node
// The `svc` binary: register tsx, then run the CLI. main() returns the exit code (0 ok, 1 error,
// 2 usage/cancel, 4 auth/locked); setting exitCode instead of calling exit() lets output drain.
import './register-tsx.js';

const { main } = await import('../main.ts');
process.exitCode = await main(process.argv.slice(2));
