import { describe, expect, it } from 'vitest';
import { unsyncedFs } from '../../core/test-support/unsynced-fs.ts';
import { EngineFloor } from './engine-floor.ts';
import { tokenizeOnFloor } from './tokenize-floor.ts';

describe('tokenizeOnFloor', () => {
  it('walks a payload as the tokenize endpoint does: definitions become tokens, other values generic ids', async () => {
    const floor = await EngineFloor.open(undefined, unsyncedFs);
    try {
      const answer = (await tokenizeOnFloor(floor, 'app', {
        name: 'Jane Doe',
        card: { type: 'card_number', data: '4242424242424242' },
        tags: ['a', 7],
      })) as { name: string; card: { id: string; type: string; mask: string }; tags: string[] };
      expect(answer.card.type).toBe('card_number');
      expect(answer.card.mask).toBe('424242XXXXXX4242');
      expect(floor.reveal(answer.card.id)).toBe('4242424242424242');
      expect(floor.reveal(answer.name)).toBe('Jane Doe');
      expect(answer.tags.map((id) => floor.reveal(id))).toEqual(['a', '7']);
    } finally {
      await floor.close();
    }
  });
});
