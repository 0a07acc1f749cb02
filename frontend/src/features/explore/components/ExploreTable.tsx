import { formatNumber } from "../../../lib/format";
import type { Explore } from "../api/get-explore";

/** The plotted points as a table, folded away below the plot (the first 500 of each group). */
export function ExploreTable({ data }: { data: Explore }) {
  if (data.traces.length === 0) return null;
  return (
    <details className="card">
      <summary>Data table ({formatNumber(data.traces.reduce((s, t) => s + t.points.length, 0))} points)</summary>
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
          </tr>
        </thead>
        <tbody>
          {data.traces.flatMap((t) =>
            t.points.slice(0, 500).map((p, i) => (
              <tr key={`${t.group}-${i}`}>
                <td>{t.group ?? "–"}</td>
                <td>{String(p.x)}</td>
                <td className="num">{p.n}</td>
                <td className="num">{p.repetitions}</td>
                <td className="num">{formatNumber(p.median)}</td>
                <td className="num">{formatNumber(p.p5)}</td>
                <td className="num">{formatNumber(p.p95)}</td>
                <td className="num">{formatNumber(p.min)}</td>
                <td className="num">{formatNumber(p.max)}</td>
                <td title={p.flags.map((f) => data.flag_reasons[f] ?? f).join("\n")}>{p.flags.join(", ")}</td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </details>
  );
}
