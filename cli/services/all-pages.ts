/** Every item of a paginated service list, `size` at a time. */
export async function allPages<T>(
  list: (page: { page: number; size: number }) => Promise<{ total: number; items: T[] }>,
  size = 100,
): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const result = await list({ page, size });
    items.push(...result.items);
    if (result.items.length < size || items.length >= result.total) return items;
  }
}
