import { Link } from "react-router-dom";
import { Empty } from "../../../components/ui/States";
import { formatNumber } from "../../../lib/format";
import type { Run, RunResult } from "../api/get-run";
import { seriesExploreLink } from "../links";
import { FLAG_TEXT, resultFlags } from "../trust";
import { paths } from "../../../lib/paths";

function Samples({ result }: { result: RunResult }) {
  if (result.samples.length === 0) return <span className="muted">none</span>;
  const shown = result.samples
    .slice(0, 12)
    .map((s) => formatNumber(s))
    .join(", ");
  return (
    <span className="mono small" title={result.samples.join(", ")}>
      {shown}
      {result.samples.length > 12 ? ` … (${result.samples.length})` : ""}
    </span>
  );
}

/** One row per metric: its statistics, samples, trust flags and links to its history. */
export function RunResults({ run }: { run: Run }) {
  if (run.results.length === 0) return <Empty title="This run has no results (it may have failed before measuring)." />;
  return (
    <table className="table" data-testid="results-table">
      <thead>
        <tr>
          <th>metric</th>
          <th className="num">median</th>
          <th>unit</th>
          <th className="num">n</th>
          <th className="num">mean</th>
          <th className="num">stdev</th>
          <th className="num">min</th>
          <th className="num">p5</th>
          <th className="num">p95</th>
          <th className="num">max</th>
          <th>samples</th>
          <th>history</th>
        </tr>
      </thead>
      <tbody>
        {run.results.map((r) => (
          <tr key={r.metric}>
            <td className="mono">
              {r.metric} <span className="muted small">{r.direction === "higher" ? "↑ better" : r.direction === "lower" ? "↓ better" : ""}</span>
              {resultFlags(run, r.metric).map((f) => (
                <span key={f} className="badge warn trust-mark" title={run.trust.find((t) => t.flag === f)?.reason}>
                  {FLAG_TEXT[f] ?? f}
                </span>
              ))}
            </td>
            <td className="num strong">{formatNumber(r.value)}</td>
            <td>{r.unit}</td>
            <td className="num">{r.n}</td>
            <td className="num">{formatNumber(r.mean)}</td>
            <td className="num">{formatNumber(r.stdev)}</td>
            <td className="num">{formatNumber(r.min)}</td>
            <td className="num">{formatNumber(r.p5)}</td>
            <td className="num">{formatNumber(r.p95)}</td>
            <td className="num">{formatNumber(r.max)}</td>
            <td>
              <Samples result={r} />
            </td>
            <td className="nowrap">
              <Link to={paths.series(r.series_id)}>series</Link> · <Link to={seriesExploreLink(run, r.metric)}>explore</Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
