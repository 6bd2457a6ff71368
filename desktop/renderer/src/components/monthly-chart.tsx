import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { formatCount, niceCeiling } from './numbers';

interface Month {
  readonly year: number;
  readonly month: number;
  readonly count: number;
}

const label = (m: Month) => `${m.year}-${String(m.month).padStart(2, '0')}`;

/**
 * Month-by-month active tokens as a bar chart (recharts) with the included number as a line; a
 * month above it is drawn in the warning colour. Recharts draws SVG and sets sizes through
 * attributes and the style property (CSSOM), never style attributes in markup nor eval, so the
 * console's CSP holds. It fills the card's width, and the value axis is as wide as its longest
 * label, so neither labels nor the line's caption are cut. The same numbers follow as a table for
 * screen readers. Loaded with the Overview only when it has a chart to draw.
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
  const top = niceCeiling(Math.max(included, ...history.map((m) => m.count), 1) * 1.1);
  const axisWidth = 12 + 7 * formatCount(top).length;
  return (
    <figure className="chart">
      <div aria-hidden="true" className="chart-area">
        <ResponsiveContainer width="100%" height={220}>
          <BarChart
            accessibilityLayer={false}
            data={data}
            margin={{ top: 24, right: 16, bottom: 4, left: 4 }}
          >
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="month" tick={{ fontSize: 11 }} interval="preserveStartEnd" minTickGap={8} />
            <YAxis
              allowDecimals={false}
              domain={[0, top]}
              ticks={[0, top / 4, top / 2, (top * 3) / 4, top].filter((t) => Number.isInteger(t))}
              tick={{ fontSize: 11 }}
              tickFormatter={(v: number) => formatCount(v)}
              width={axisWidth}
            />
            <Tooltip formatter={(v) => formatCount(Number(v))} />
            <Bar dataKey="count" name="Active tokens" className="bar" isAnimationActive={false}>
              {data.map((d) => (
                <Cell key={d.month} className={d.count > included ? 'bar over' : 'bar'} />
              ))}
            </Bar>
            <ReferenceLine
              y={included}
              className="included-line"
              strokeDasharray="4 2"
              label={{ value: `included: ${formatCount(included)}`, position: 'top', fontSize: 11 }}
            />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption>
        Monthly active tokens, month by month, against the {formatCount(included)} included
      </figcaption>
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
              <td>{formatCount(d.count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
