/** `*` matches any run of characters; without one, the name contains the text. Case-insensitive. */
export function nameMatcher(pattern: string | undefined): ((name: string) => boolean) | undefined {
  if (pattern === undefined || pattern === '') return undefined;
  const parts = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const body = parts.join('.*');
  const regex = new RegExp(pattern.includes('*') ? `^${body}$` : body, 'is');
  return (name) => regex.test(name);
}
