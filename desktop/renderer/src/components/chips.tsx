/** A list of short names (permissions) as chips that wrap between chips, never inside one. */
export function Chips({ items, label }: { readonly items: readonly string[]; readonly label: string }) {
  if (items.length === 0) return <span className="hint">none</span>;
  return (
    <ul className="chips" aria-label={label}>
      {items.map((item) => (
        <li key={item} className="chip">
          {item}
        </li>
      ))}
    </ul>
  );
}
