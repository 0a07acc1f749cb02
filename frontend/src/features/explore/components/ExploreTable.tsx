import { formatCount, formatNumber } from "../../../lib/format";
import { humanValue, unitOf } from "../../../lib/units";
import type { Explore } from "../api/get-explore";

/** The rows a group shows: a browser lays out a table of 50,000 rows slowly (Download CSV has them all). */
const ROWS = 500;

/** A point's time to the second, as the rest of the UI writes times. */
function timeCell(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

/** What a point pools, as "fsync: file, none; target: /mnt/a, /mnt/b". */
function pools(mixes: Record<string, (string | null)[]> | undefined): string {
  return Object.entries(mixes ?? {})
    .map(([name, values]) => `${name.replace(/^(param|label)\./, "")}: ${values.map((v) => (v === null ? "not set" : humanValue(name, v))).join(", ")}`)
    .join("; ");
}

/** The plotted points as a table, folded away below the plot (the first ROWS of each group). */
export function ExploreTable({ data }: { data: Explore }) {
  if (data.traces.length === 0) return null;
  const total = data.traces.reduce((s, t) => s + t.points.length, 0);
  const shown = data.traces.reduce((s, t) => s + Math.min(t.points.length, ROWS), 0);
  const time = data.x === "time";
  return (
    <details className="card">
      <summary>
        Data table ({formatCount(total)} points
        {shown < total && `; the first ${formatCount(ROWS)} of each ${data.traces.length > 1 ? "group" : "line"} shown, Download CSV has every one`})
      </summary>
      <table className="table">
        <thead>
          <tr>
            <th>{data.group ?? "group"}</th>
            <th>{data.x}</th>
            <th className="num">runs</th>
            <th className="num">reps</th>
            <th className="num">median</th>
            <th className="num">p5</th>
            <th className="num">p95</th>
            <th className="num">min</th>
            <th className="num">max</th>
            <th>flags</th>
            <th>pools</th>
          </tr>
        </thead>
        <tbody>
          {data.traces.flatMap((t) =>
            t.points.slice(0, ROWS).map((p, i) => (
              <tr key={`${t.group}-${i}`}>
                <td title={unitOf(data.group) && t.group !== null ? t.group : undefined}>{humanValue(data.group, t.group)}</td>
                <td title={unitOf(data.x) ? String(p.x) : undefined}>{time && typeof p.x === "string" ? timeCell(p.x) : humanValue(data.x, p.x)}</td>
                <td className="num">{p.n}</td>
                <td className="num">{p.repetitions}</td>
                <td className="num">{formatNumber(p.median)}</td>
                <td className="num">{formatNumber(p.p5)}</td>
                <td className="num">{formatNumber(p.p95)}</td>
                <td className="num">{formatNumber(p.min)}</td>
                <td className="num">{formatNumber(p.max)}</td>
                <td title={p.flags.map((f) => data.flag_reasons[f] ?? f).join("\n")}>{p.flags.join(", ")}</td>
                <td className="small">{pools(p.mixes)}</td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </details>
  );
}
