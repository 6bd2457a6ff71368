import { describe, expect, it } from 'vitest';
import { EventLoopTurns } from './event-loop-turns.ts';

/** Whether a turn of the event loop passed while `step` ran. */
async function turnPassed(step: () => Promise<void>): Promise<boolean> {
  let turned = false;
  const immediate = setImmediate(() => (turned = true));
  await step();
  clearImmediate(immediate);
  return turned;
}

describe('event loop turns', () => {
  it('yields a turn once the slice is used up, and again only after the next slice', async () => {
    const turns = new EventLoopTurns(0);
    expect(await turnPassed(() => turns.due())).toBe(true);
    expect(await turnPassed(() => turns.due())).toBe(true);
  });

  it('does not wait for a turn within the slice', async () => {
    const turns = new EventLoopTurns(60_000);
    expect(await turnPassed(() => turns.due())).toBe(false);
  });
});
