import { describe, expect, it } from 'vitest';
import { packageJsonOf } from './build-cli.ts';

describe('packageJsonOf', () => {
  it('names the package.json of the innermost package a bundled file belongs to', () => {
    expect(packageJsonOf('node_modules/commander/lib/command.js')).toBe(
      'node_modules/commander/package.json',
    );
    expect(packageJsonOf('node_modules/@colors/colors/lib/index.js')).toBe(
      'node_modules/@colors/colors/package.json',
    );
    expect(packageJsonOf('node_modules/cli-table3/node_modules/string-width/index.js')).toBe(
      'node_modules/cli-table3/node_modules/string-width/package.json',
    );
  });
});
