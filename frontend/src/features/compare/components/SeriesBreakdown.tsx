import { formatNumber } from "../../../lib/format";
import { humanValue } from "../../../lib/units";
import { VERDICT_TEXT, changeText, changeTitle, verdictTone } from "../diff";
import type { GroupCompare } from "../group";
import { TrustMark } from "./TrustMark";

type Metric = GroupCompare["metrics"][number];

function flat(key: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(key)) {
    if (v && typeof v === "object") for (const [n, x] of Object.entries(v as Record<string, unknown>)) out[n] = String(x);
    else out[k] = String(v);
  }
  return out;
}

/** What tells the pairs apart: only the keys whose values differ between them. */
export function pairLabels(keys: Record<string, unknown>[]): string[] {
  const flats = keys.map(flat);
  const names = [...new Set(flats.flatMap((f) => Object.keys(f)))];
  const varying = names.filter((n) => new Set(flats.map((f) => f[n] ?? "")).size > 1);
  return flats.map((f) => (varying.length ? varying.map((n) => `${n}=${f[n] ?? "–"}`).join(" ") : "the one series"));
}

/** One metric's pairs of series: each group's median and each change with its interval. */
export function SeriesBreakdown({ metric, data }: { metric: Metric; data: GroupCompare }) {
  const labels = pairLabels(metric.pairs.map((p) => p.key));
  return (
    <table className="table compare series-breakdown" data-testid={`series-${metric.metric}`}>
      <thead>
        <tr>
          <th>series</th>
          {data.values.map((v) => (
            <th key={v} className="num">
              {data.by} = {humanValue(data.by, v)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {metric.pairs.map((pair, p) => (
          <tr key={p}>
            <th className="mono small">{labels[p]}</th>
            {pair.cells.map((c, g) => {
              const tone = c === null ? "missing" : verdictTone(c.change?.verdict, c.change?.change_pct, g === 0);
              return (
                <td key={g} className={`num small tone-${tone}`} data-tone={tone} title={c?.change ? changeTitle(c.change, data.min_effect_pct) : undefined}>
                  {c === null ? (
                    <span className="muted">no runs</span>
                  ) : (
                    <>
                      {formatNumber(c.value)} <TrustMark flags={c.flags} reasons={data.reasons} />
                      <span className="muted"> n {c.n}</span>
                      {c.change && (
                        <div>
                          {c.change.verdict !== "not_comparable" && changeText(c.change)} <span className="verdict">{VERDICT_TEXT[c.change.verdict]}</span>
                        </div>
                      )}
                    </>
                  )}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
