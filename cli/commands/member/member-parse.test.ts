import { describe, expect, it } from 'vitest';
import { runSvc } from '../../test-support/harness.ts';
import { parseOptions } from '../../test-support/parse.ts';
import { newMemberListCommand } from './list.ts';
import { newMemberRemoveCommand } from './remove.ts';

/** Parsing layer of `svc member …`: flags → typed options, nothing run. */

describe('typed options', () => {
  it('member list: repeatable --user-id, page defaults 1/20', async () => {
    expect(await parseOptions(newMemberListCommand, [])).toMatchObject({
      userIds: [],
      page: 1,
      size: 20,
      json: false,
    });
    expect(
      await parseOptions(newMemberListCommand, [
        '--user-id',
        'a',
        '--user-id',
        'b,c',
        '--page',
        '2',
        '--size',
        '50',
      ]),
    ).toMatchObject({ userIds: ['a', 'b', 'c'], page: 2, size: 50 });
  });

  it('member remove: id and --yes', async () => {
    expect(await parseOptions(newMemberRemoveCommand, ['m1'], { isTTY: true })).toMatchObject({
      memberId: 'm1',
      yes: false,
    });
    expect(await parseOptions(newMemberRemoveCommand, ['m1', '-y', '--tenant', 't'])).toMatchObject({
      yes: true,
      tenant: 't',
    });
  });

  it('bad values are usage errors (exit 2, one line)', async () => {
    for (const args of [
      ['member', 'list', '--size', '-1'],
      ['member', 'remove'],
    ]) {
      const result = await runSvc(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^svc: [^\n]+\n$/);
    }
  });
});
