import { readFile } from 'node:fs/promises';
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Invitation, Member } from '../../../core/tenancy/contract.ts';
import { acceptLinkIn } from '../../../core/test-support/smtp-sink.ts';
import { expectOk, expectOneLineError } from '../../test-support/expect.ts';
import { runSvc, type TempHome, type TestIoOptions } from '../../test-support/harness.ts';
import { makeTenantHome } from '../../test-support/tenant-home.ts';

/** `svc member …` against a real vault; members join through invitations mailed to the outbox. */

let home: TempHome;
beforeEach(async () => {
  ({ home } = await makeTenantHome());
});
afterEach(() => home.cleanup());

const PASSWORD = 'new member password 123';

interface Paged<T> {
  readonly data: T[];
}

type Delivered = Invitation & { mail: { paths?: string[] } };

const run = (args: string[], options: TestIoOptions = {}) => runSvc(args, { env: home.env(), ...options });

describe('svc member remove', () => {
  it('removes an accepted member after confirmation; the owner cannot be removed', async () => {
    const email = 'member@example.com';
    await run(['invitation', 'create', '--email', email, '--json']).then(async (r) => {
      const file = (JSON.parse(r.stdout) as Delivered).mail.paths?.[0] ?? '';
      const { secret } = acceptLinkIn((await simpleParser(await readFile(file))).text ?? '');
      expectOk(
        await run(
          ['invitation', 'accept', secret, '--first-name', 'A', '--last-name', 'B', '--password-stdin'],
          {
            stdin: PASSWORD,
          },
        ),
      );
    });
    const members = (JSON.parse((await run(['member', 'list', '--json'])).stdout) as Paged<Member>).data;
    const added = members.find((m) => m.user.email === email);
    const owner = members.find((m) => m.role === 'OWNER');
    if (added === undefined || owner === undefined) throw new Error('members missing');

    const filtered = JSON.parse(
      (await run(['member', 'list', '--user-id', added.user.id, '--json'])).stdout,
    ) as Paged<Member>;
    expect(filtered.data.map((m) => m.id)).toEqual([added.id]);
    expectOneLineError(await run(['member', 'list', '--size', '51']), 2);
    expectOneLineError(await run(['member', 'list', '--page', '0']), 2);

    // Ownership moves with `member update --role OWNER`, and back.
    expectOneLineError(await run(['member', 'update', owner.id, '--role', 'ADMIN']), 1, /owner/i);
    expectOneLineError(await run(['member', 'update', added.id, '--role', 'READER']), 2);
    const promoted = await run(['member', 'update', added.id, '--role', 'OWNER']);
    expectOk(promoted);
    expect(promoted.stdout).toBe(`Member ${added.id} (${email}) is OWNER\n`);
    const back = await run(['member', 'update', owner.id, '--role', 'OWNER', '--json']);
    expectOk(back);
    expect(JSON.parse(back.stdout)).toMatchObject({ id: owner.id, role: 'OWNER' });

    const ownerRemoval = await run(['member', 'remove', owner.id, '--yes']);
    expectOneLineError(ownerRemoval, 1);
    expectOneLineError(await run(['member', 'remove', added.id]), 2, /--yes/);
    const removed = await run(['member', 'remove', added.id], { isTTY: true, answers: [true] });
    expectOk(removed);
    expect(removed.stdout).toBe(`Removed member ${added.id} (${email})\n`);
    const after = JSON.parse((await run(['member', 'list', '--json'])).stdout) as Paged<Member>;
    expect(after.data.map((m) => m.id)).toEqual([owner.id]);
    expectOneLineError(await run(['member', 'remove', added.id, '--yes']), 1, /no member/);
  });
});
