/**
 * The server writes the members an answer always has before the optional ones, so an object read
 * over HTTP can list its members in another order than the same object in core (the schema's
 * order). `--json` prints an object the same whichever way it came: `placeAfter` moves the
 * optional members that the schema declares before a required one back to where they belong.
 */

/**
 * `body` with `members` (those it has) moved to just after `anchor`, in the order given; every other
 * member keeps its place, and members this client does not know yet still reach the caller.
 */
export function placeAfter<T extends object>(
  body: T,
  anchor: keyof T & string,
  members: readonly (keyof T & string)[],
): T {
  const moving = members.filter((member) => Object.hasOwn(body, member));
  const moved = moving.map((member): [string, unknown] => [member, body[member]]);
  const ordered: [string, unknown][] = [];
  let placed = false;
  for (const [name, value] of Object.entries(body)) {
    if (moving.includes(name as keyof T & string)) continue;
    ordered.push([name, value]);
    if (name === anchor) {
      ordered.push(...moved);
      placed = true;
    }
  }
  if (!placed) ordered.push(...moved);
  // The same members in another order: the object is still a T.
  return Object.fromEntries(ordered) as T;
}
