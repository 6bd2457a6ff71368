import { Bar, BarChart, CartesianGrid, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';

interface Month {
  readonly year: number;
  readonly month: number;
  readonly count: number;
}

const label = (m: Month) => `${m.year}-${String(m.month).padStart(2, '0')}`;

/**
 * Month-by-month active tokens as a bar chart (recharts) with the included number as a line.
 * Recharts draws SVG and sets sizes through attributes and the style property (CSSOM), never
 * style attributes in markup nor eval, so the console's CSP holds. The same numbers follow as a
 * table for screen readers.
 */
export function MonthlyChart({
  history,
  included,
}: {
  readonly history: readonly Month[];
  readonly included: number;
}) {
  if (history.length === 0) return <p className="state empty">No monthly history yet.</p>;
  const data = history.map((m) => ({ month: label(m), count: m.count }));
  const top = Math.max(included, ...history.map((m) => m.count), 1);
  return (
    <figure className="chart">
      <div aria-hidden="true">
        <BarChart
          accessibilityLayer={false}
          width={480}
          height={200}
          data={data}
          margin={{ top: 16, right: 16, bottom: 0, left: 0 }}
        >
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="month" tick={{ fontSize: 11 }} />
          <YAxis
            allowDecimals={false}
            domain={[0, Math.ceil(top * 1.1)]}
            tick={{ fontSize: 11 }}
            width={40}
          />
          <Tooltip />
          <Bar
            dataKey="count"
            name="Active tokens"
            className="bar"
            fill="#0b5cad"
            isAnimationActive={false}
          />
          <ReferenceLine
            y={included}
            stroke="#b42318"
            strokeDasharray="4 2"
            label={{ value: `included: ${included}`, position: 'insideTopRight', fontSize: 11 }}
          />
        </BarChart>
      </div>
      <figcaption>Monthly active tokens, month by month, against the {included} included</figcaption>
      <table className="visually-hidden">
        <caption>Monthly active tokens by month</caption>
        <thead>
          <tr>
            <th scope="col">Month</th>
            <th scope="col">Active tokens</th>
          </tr>
        </thead>
        <tbody>
          {data.map((d) => (
            <tr key={d.month}>
              <td>{d.month}</td>
              <td>{d.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
