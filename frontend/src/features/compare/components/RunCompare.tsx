import { Link } from "react-router-dom";
import { Empty } from "../../../components/ui/States";
import { DurabilityBadges } from "../../runs";
import { formatNumber, formatTime, formatValue, shortId } from "../../../lib/format";
import type { Compare } from "../api/get-compare";
import { VERDICT_TEXT, changeText, changeTitle, verdictTone } from "../diff";
import { DurabilityWarning } from "./DurabilityWarning";
import { Legend } from "./Legend";
import { TrustMark } from "./TrustMark";
import { paths } from "../../../lib/paths";

function Differences({ title, items, runs }: { title: string; items: Compare["durability"]; runs: Compare["runs"] }) {
  if (items.length === 0) return null;
  return (
    <>
      <h3>{title}</h3>
      <table className="table differences">
        <thead>
          <tr>
            <th />
            {runs.map((r) => (
              <th key={r.uuid} className="mono">
                {shortId(r.uuid)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((d) => (
            <tr key={d.key}>
              <th className="mono">{d.key}</th>
              {d.values.map((v, i) => (
                <td key={i} className="mono small">
                  {formatValue(v)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** Memory-backed media and dropped flushes, beside the run's other durability badges. */
function MediaBadges({ run }: { run: Compare["runs"][number] }) {
  return (
    <>
      {run.memory_backed && (
        <span className="badge warn" title="the target is memory (tmpfs, ramfs): an fsync reaches no stable storage">
          memory-backed
        </span>
      )}
      {run.flush_to_device === false && !run.memory_backed && (
        <span className="badge warn" title="flushes do not reach the device">
          flushes dropped
        </span>
      )}
    </>
  );
}

function CompareTable({ data }: { data: Compare }) {
  return (
    <table className="table compare" data-testid="compare-table">
      <thead>
        <tr>
          <th>metric</th>
          {data.runs.map((r, i) => (
            <th key={r.uuid} className="num">
              <Link to={paths.run(r.uuid)} className="mono">
                {shortId(r.uuid)}
              </Link>
              <div className="muted small">{i === 0 ? "baseline" : formatTime(r.started_at).slice(0, 10)}</div>
              <div className="small">
                {Object.entries(r.labels)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(" ")}
              </div>
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {data.metrics.map((m) => (
          <tr key={m.metric}>
            <th className="mono">
              {m.metric}
              <div className="muted small">
                {m.unit}, {m.direction === "higher" ? "higher is better" : m.direction === "lower" ? "lower is better" : m.direction}
              </div>
            </th>
            {m.values.map((v, i) => {
              const change = m.changes[i] ?? null;
              const tone = verdictTone(change?.verdict, change?.change_pct, i === 0);
              const spread = m.spread[i];
              return (
                <td key={i} className={`num tone-${tone}`} data-tone={tone} title={change ? changeTitle(change, data.min_effect_pct) : undefined}>
                  <div className="strong">
                    {formatNumber(v)} <TrustMark flags={m.flags[i] ?? []} reasons={data.reasons} />
                  </div>
                  {spread && (
                    <div className="muted small">
                      {formatNumber(spread[0])}–{formatNumber(spread[1])}
                      {m.n[i] !== null && ` · n ${m.n[i]}`}
                    </div>
                  )}
                  {change && (
                    <>
                      {change.verdict !== "not_comparable" && <div className="diff">{changeText(change)}</div>}
                      <div className="verdict small" data-testid="verdict">
                        {VERDICT_TEXT[change.verdict]}
                      </div>
                      {change.reason && <div className="small">{change.reason}</div>}
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

/** Runs side by side: the judged table, the durability warning, and what differs. */
export function RunCompare({ data }: { data: Compare }) {
  return (
    <>
      <DurabilityWarning warning={data.warning} />
      <section className="card">
        <div className="runs-strip">
          {data.runs.map((r, i) => (
            <div key={r.uuid} className="run-tile">
              <div>
                <Link to={paths.run(r.uuid)} className="mono">
                  {shortId(r.uuid)}
                </Link>{" "}
                {i === 0 && <span className="badge">baseline</span>}
              </div>
              <div className="small">
                {r.workload} on {r.agent}:{r.target} · {formatTime(r.started_at)}
              </div>
              <DurabilityBadges run={r} />
              <MediaBadges run={r} />
            </div>
          ))}
        </div>
        {data.metrics.length === 0 ? <Empty title="These runs share no metric." /> : <CompareTable data={data} />}
        <Legend minEffectPct={data.min_effect_pct} confidence={data.confidence} />
      </section>
      {(data.durability.length > 0 || data.parameters.length > 0 || data.labels.length > 0 || data.environment.length > 0) && (
        <section className="card">
          <h2>What differs</h2>
          <Differences title="durability" items={data.durability} runs={data.runs} />
          <Differences title="parameters" items={data.parameters} runs={data.runs} />
          <Differences title="labels" items={data.labels} runs={data.runs} />
          <Differences title="environment" items={data.environment} runs={data.runs} />
        </section>
      )}
    </>
  );
}
