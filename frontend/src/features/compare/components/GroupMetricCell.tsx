// One metric in one group of a group compare. When the series disagree the server splits the
// headline by the dimension that separates them (fsync=file worse, fsync=none within noise):
// each subset is shown first, with its own value and coloured verdict, and the pooled figure
// after it, named as pooled, since no run has it.
import { formatNumber, formatPercent, plural } from "../../../lib/format";
import { VERDICT_TEXT, verdictTone } from "../diff";
import { groupSummary, subsetSummary, type GroupCompare, type GroupCell } from "../group";
import { TrustMark } from "./TrustMark";

type Metric = GroupCompare["metrics"][number];

function rangeTitle(c: GroupCell): string | undefined {
  const parts = [];
  if (c.reason) parts.push(c.reason);
  if (c.lowest_pct !== null && c.highest_pct !== null && c.pairs > 1)
    parts.push(`series from ${formatPercent(c.lowest_pct)} to ${formatPercent(c.highest_pct)}`);
  return parts.length ? parts.join("; ") : undefined;
}

function Subsets({ metric, index }: { metric: Metric; index: number }) {
  const split = metric.split;
  if (!split) return null;
  return (
    <div className="subsets" data-testid="subsets">
      {split.subsets.map((s) => {
        const c = s.cells[index];
        if (!c) return null;
        const tone = index === 0 ? "base" : verdictTone(c.verdict, c.change_pct);
        return (
          <div key={s.value} className={`subset tone-${tone}`} data-tone={tone} data-testid="subset" title={rangeTitle(c)}>
            {index === 0 ? (
              <>
                {split.dimension}={s.value}: <span className="strong">{formatNumber(c.value)}</span>
                <span className="muted small">
                  {" "}
                  · {c.series} series · n {c.samples}
                </span>
              </>
            ) : (
              <>
                <span className="strong">{subsetSummary(split.dimension, s.value, c, s.cells[0])}</span>
                <span className="muted small"> · {formatNumber(c.value)}</span>
              </>
            )}
          </div>
        );
      })}
    </div>
  );
}

export function GroupMetricCell({ metric, index, reasons }: { metric: Metric; index: number; reasons: Record<string, string> }) {
  const c = metric.cells[index];
  if (!c) return <td />;
  const split = metric.split;
  // Split: the cell itself stays neutral, its subsets carry the colours.
  const tone = index === 0 ? "base" : split ? "noise" : verdictTone(c.verdict, c.change_pct);
  const pooled = (metric.varying ?? []).length > 0 && c.series > 1;
  return (
    <td className={`num tone-${tone}`} data-tone={tone} title={rangeTitle(c)}>
      <Subsets metric={metric} index={index} />
      <div className={split ? "pooled muted small" : undefined}>
        <div className={split ? undefined : "strong"}>
          {(split || pooled) && "pooled: "}
          {formatNumber(c.value)} <TrustMark flags={c.flags} reasons={reasons} />
        </div>
        <div className="muted small">
          {c.series} series · {plural(c.runs, "run")} · n {c.samples}
          {pooled && !split && ` · median over series that differ in ${(metric.varying ?? []).join(", ")}`}
        </div>
        {index > 0 && (
          <>
            <div className={split ? undefined : "diff"} data-testid="group-summary">
              {groupSummary(c, metric.cells[0])}
            </div>
            {c.verdict && c.verdict !== "not_comparable" && c.pairs > 0 && !split && <div className="verdict small">{VERDICT_TEXT[c.verdict]}</div>}
            {c.reason && !split && <div className="small">{c.reason}</div>}
          </>
        )}
      </div>
    </td>
  );
}
