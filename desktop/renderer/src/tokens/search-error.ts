/** Where the server says a search query went wrong: its messages end in `at position N` (0-based). */
export function searchErrorPosition(messages: readonly string[], query: string): number | null {
  for (const message of messages) {
    const match = /at position (\d+)/.exec(message);
    if (match?.[1] !== undefined) return Math.min(Number(match[1]), query.length);
  }
  return null;
}

/** The query split around the character at `position` (past the end: an empty marked part). */
export function splitAt(query: string, position: number): { before: string; at: string; after: string } {
  return {
    before: query.slice(0, position),
    at: query.slice(position, position + 1),
    after: query.slice(position + 1),
  };
}
