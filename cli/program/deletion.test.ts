import { describe, expect, it } from 'vitest';
import { newByIdDeleteCommand, reportDeleted } from './deletion.ts';
import { makeTestIo } from '../test-support/harness.ts';

describe('reportDeleted', () => {
  it('prints the record marked deleted under --json', () => {
    const io = makeTestIo();
    reportDeleted(io.deps, true, { id: 'p1', tenant_id: 't1' }, 'Deleted proxy p1 (p)');
    expect(JSON.parse(io.stdout())).toEqual({ id: 'p1', tenant_id: 't1', deleted: true });
  });

  it('prints the line otherwise', () => {
    const io = makeTestIo();
    reportDeleted(io.deps, false, { id: 'p1' }, 'Deleted proxy p1 (p)');
    expect(io.stdout()).toBe('Deleted proxy p1 (p)\n');
  });
});

describe('newByIdDeleteCommand', () => {
  const parse = async (argv: string[]) => {
    const io = makeTestIo();
    const seen: Array<{ id: string; yes: boolean }> = [];
    const command = newByIdDeleteCommand(
      io.deps,
      {
        action: 'deleting a thing',
        description: 'Delete a thing',
        argument: '<thing-id>',
        help: "the thing's id",
        optionsFrom: (args) => ({ id: String(args[0]) }),
      },
      async (options) => {
        seen.push(options);
      },
    );
    await command.parseAsync(argv, { from: 'user' });
    return seen;
  };

  it('passes the id and whether --yes was given', async () => {
    expect(await parse(['th_1'])).toEqual([{ id: 'th_1', yes: false }]);
    expect(await parse(['th_1', '--yes'])).toEqual([{ id: 'th_1', yes: true }]);
    expect(await parse(['-y', 'th_1'])).toEqual([{ id: 'th_1', yes: true }]);
  });

  it('offers --yes and the tenant and vault options of every by-id command', () => {
    const io = makeTestIo();
    const command = newByIdDeleteCommand(
      io.deps,
      { action: 'deleting it', description: 'd', argument: '<id>', help: 'h', optionsFrom: () => ({}) },
      async () => undefined,
    );
    const flags = command.options.map((o) => o.long);
    expect(flags).toEqual(expect.arrayContaining(['--yes', '--tenant', '--path']));
  });
});
