import { Link } from "react-router-dom";
import { formatCount, plural } from "../../../lib/format";
import type { Explore } from "../api/get-explore";

/** How much the plot shows: groups, points, runs and repetitions, whether it was cut short, and
 * whether its medians and percentiles come from sketches (with the way to the exact figures). */
export function ExploreSummary({ data, exactHref }: { data: Explore; exactHref?: string }) {
  const points = data.traces.reduce((s, t) => s + t.points.length, 0);
  const runs = data.traces.reduce((s, t) => s + t.points.reduce((a, p) => a + p.n, 0), 0);
  const reps = data.traces.reduce((s, t) => s + t.points.reduce((a, p) => a + p.repetitions, 0), 0);
  return (
    <p className="muted small" data-testid="explore-summary">
      {formatCount(data.traces.length)} {data.traces.length === 1 ? "group" : "groups"}, {formatCount(points)} points, {formatCount(runs)} runs,{" "}
      {formatCount(reps)} repetitions
      {data.unit ? `; unit ${data.unit}` : ""}
      {data.truncated && (
        <span className="badge warn">
          only the newest {formatCount(points)} points are shown: narrow the filters, or step back through a series&apos; older points on its page
        </span>
      )}
      {data.approximate && (
        <span data-testid="explore-approximate">
          {" "}
          <span className="badge" title="Every count, mean, min and max is exact; medians and p5/p95 come from per-series quantile sketches.">
            sketched: medians and p5/p95 within ±{((data.quantile_error ?? 0) * 100).toFixed(1)} %
          </span>
          {exactHref && <Link to={exactHref}>exact figures</Link>}
        </span>
      )}
    </p>
  );
}

/** Which flags the plotted points carry, how many points each, and what they mean. */
export function FlagLegend({ data }: { data: Explore }) {
  const counts = new Map<string, number>();
  for (const t of data.traces) for (const p of t.points) for (const f of p.flags) counts.set(f, (counts.get(f) ?? 0) + 1);
  if (counts.size === 0) return null;
  return (
    <div className="flag-legend small" data-testid="explore-flags">
      <strong>○ Hollow points need care</strong> (hover one for its reasons):
      <ul>
        {[...counts].map(([flag, count]) => (
          <li key={flag}>
            <span className="badge warn">{flag.replaceAll("_", " ")}</span> {plural(count, "point")}: {data.flag_reasons[flag] ?? flag}
          </li>
        ))}
      </ul>
    </div>
  );
}
