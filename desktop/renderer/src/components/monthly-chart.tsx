/**
 * Month-by-month counts as an SVG bar chart. Sizes are SVG attributes, not style attributes, so
 * the console's CSP (no inline styles) allows them.
 */
export function MonthlyChart({
  history,
}: {
  readonly history: readonly { readonly year: number; readonly month: number; readonly count: number }[];
}) {
  if (history.length === 0) return <p className="state empty">No monthly history yet.</p>;
  const width = 360;
  const height = 120;
  const max = Math.max(1, ...history.map((h) => h.count));
  const slot = width / history.length;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height + 20}`} role="img" aria-label="Monthly active tokens by month">
        {history.map((h, i) => {
          const barHeight = (h.count / max) * height;
          const label = `${h.year}-${String(h.month).padStart(2, '0')}`;
          return (
            <g key={label}>
              <title>{`${label}: ${h.count}`}</title>
              <rect
                className="bar"
                x={i * slot + slot * 0.15}
                y={height - barHeight}
                width={slot * 0.7}
                height={barHeight}
              />
              <text className="axis" x={i * slot + slot / 2} y={height + 14} textAnchor="middle">
                {String(h.month).padStart(2, '0')}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>Monthly active tokens, month by month</figcaption>
    </figure>
  );
}
