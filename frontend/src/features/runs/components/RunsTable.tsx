import { Fragment } from "react";
import { Link } from "react-router-dom";
import { formatPairs, formatTime, shortId } from "../../../lib/format";
import { formatParams } from "../../../lib/units";
import type { RunSummary } from "../api/get-runs";
import { DurabilityBadges } from "./DurabilityBadges";
import { paths } from "../../../lib/paths";

type Props = {
  runs: RunSummary[];
  selected?: string[];
  onToggle?: (uuid: string) => void;
  /** fewer columns, for narrow cards */
  compact?: boolean;
  /** where a run's label `name=value` leads: the runs list filtered on it (each label a link) */
  labelLink?: (pair: string) => string;
};

export function RunsTable({ runs, selected, onToggle, compact = false, labelLink }: Props) {
  return (
    <table className="table" data-testid="runs-table">
      <thead>
        <tr>
          {onToggle && <th aria-label="select" />}
          <th>run</th>
          <th>started</th>
          <th>workload</th>
          <th>agent</th>
          {!compact && <th>target</th>}
          {!compact && <th>parameters</th>}
          <th>labels</th>
          {!compact && <th>durability</th>}
          <th>status</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.uuid} className={selected?.includes(r.uuid) ? "selected" : undefined}>
            {onToggle && (
              <td>
                <input
                  type="checkbox"
                  aria-label={`select run ${shortId(r.uuid)}`}
                  checked={selected?.includes(r.uuid) ?? false}
                  onChange={() => onToggle(r.uuid)}
                />
              </td>
            )}
            <td className="mono">
              <Link to={paths.run(r.uuid)}>{shortId(r.uuid)}</Link>
            </td>
            <td className="nowrap">{formatTime(r.started_at)}</td>
            <td>
              {r.workload}
              {r.reference && (
                <>
                  {" "}
                  <span className="badge" title="published figures entered by hand, never used by detection">
                    reference
                  </span>
                </>
              )}
            </td>
            <td>{r.agent}</td>
            {!compact && (
              <td className="mono ellipsis" title={r.target}>
                {r.target}
              </td>
            )}
            {!compact && <ParamsCell params={r.parameters} />}
            <td className="mono small">
              {labelLink
                ? Object.entries(r.labels).map(([k, v], i) => (
                    <span key={k}>
                      {i > 0 && " "}
                      <Link to={labelLink(`${k}:${v}`)} title={`the runs labelled ${k}=${v}`}>
                        {k}={v}
                      </Link>
                    </span>
                  ))
                : formatPairs(r.labels)}
            </td>
            {!compact && (
              <td>
                <DurabilityBadges run={r} />
              </td>
            )}
            <td>{r.status === "ok" ? "ok" : <span className="badge warn">{r.status}</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Sizes and durations as people write them (segsize=128 KiB), the stored values on hover. */
function ParamsCell({ params }: { params: Record<string, unknown> }) {
  const { raw, pairs } = formatParams(params);
  // Each pair on one line (segsize=128 KiB is not broken after 128).
  return (
    <td className="mono small params" title={raw ? `as stored: ${raw}` : undefined}>
      {pairs.map((pair, i) => (
        <Fragment key={pair}>
          {i > 0 && " "}
          <span className="nowrap">{pair}</span>
        </Fragment>
      ))}
    </td>
  );
}
