import { Link, useParams } from "react-router-dom";
import { useRun, type Run, type RunResult } from "../../features/runs/api/get-run";
import { DurabilityBadges } from "../../features/runs/components/DurabilityBadges";
import { seriesExploreLink } from "../../features/runs/links";
import { Empty, QueryView } from "../../components/ui/States";
import { formatNumber, formatTime, formatValue } from "../../lib/format";

function flatten(data: unknown, prefix = ""): [string, string][] {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return [[prefix, formatValue(data)]];
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) out.push(...flatten(v, prefix ? `${prefix}.${k}` : k));
  return out;
}

function KeyValues({ data, empty }: { data: Record<string, unknown>; empty: string }) {
  const rows = Object.keys(data).length === 0 ? [] : flatten(data);
  if (rows.length === 0) return <p className="muted">{empty}</p>;
  return (
    <dl className="kv">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd className="mono">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

function Samples({ result }: { result: RunResult }) {
  if (result.samples.length === 0) return <span className="muted">none</span>;
  const shown = result.samples.slice(0, 12).map((s) => formatNumber(s)).join(", ");
  return (
    <span className="mono small" title={result.samples.join(", ")}>
      {shown}
      {result.samples.length > 12 ? ` … (${result.samples.length})` : ""}
    </span>
  );
}

const FLAG_TEXT: Record<string, string> = {
  short_phase: "short phase",
  busy: "busy machine",
  few_repetitions: "few repetitions",
  tentative_alert: "tentative alert",
};

/** Why some numbers of this run need care, first thing on the page. */
function TrustNotes({ run }: { run: Run }) {
  if (run.trust.length === 0) return null;
  return (
    <section className="banner warn trust-notes" data-testid="trust-notes">
      <strong>Read these numbers with care:</strong>
      <ul>
        {run.trust.map((t) => (
          <li key={t.flag}>
            <span className="badge warn">{FLAG_TEXT[t.flag] ?? t.flag}</span> {t.reason}{" "}
            <span className="muted small mono">({t.metrics.length === run.results.length ? "every metric" : t.metrics.join(", ")})</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function resultFlags(run: Run, metric: string): string[] {
  return run.trust.filter((t) => t.metrics.includes(metric)).map((t) => t.flag);
}

/** The few environment facts people look for; the rest folds away below. */
const KEY_ENVIRONMENT = ["hostname", "kernel", "os", "cpu_model", "cores", "fs_type", "device", "device_model", "rotational", "mount_options"];

function Results({ run }: { run: Run }) {
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
              <Link to={`/series/${r.series_id}`}>series</Link> · <Link to={seriesExploreLink(run, r.metric)}>explore</Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function RunDetail() {
  const { uuid = "" } = useParams();
  const run = useRun(uuid);
  return (
    <div className="page">
      <QueryView query={run} what={`run ${uuid}`}>
        {(r) => (
          <>
            <div className="page-head">
              <div>
                <h1>
                  {r.workload} <span className="muted">on {r.agent}</span>
                </h1>
                <p className="muted mono" data-testid="run-uuid">
                  {r.uuid}
                </p>
              </div>
              <div className="actions">
                <Link className="button" to={`/runs?workload=${encodeURIComponent(r.workload)}&agent=${encodeURIComponent(r.agent)}`}>
                  Similar runs
                </Link>
                <Link className="button" to={`/compare?pick=${r.uuid}`}>
                  Compare with…
                </Link>
              </div>
            </div>
            <TrustNotes run={r} />
            <div className="grid-3">
              <section className="card">
                <h2>Run</h2>
                <dl className="kv">
                  <div>
                    <dt>target</dt>
                    <dd className="mono">{r.target}</dd>
                  </div>
                  <div>
                    <dt>started</dt>
                    <dd>{formatTime(r.started_at)}</dd>
                  </div>
                  <div>
                    <dt>finished</dt>
                    <dd>{formatTime(r.finished_at)}</dd>
                  </div>
                  <div>
                    <dt>status</dt>
                    <dd>{r.status === "ok" ? "ok" : <span className="badge warn">{r.status}</span>}</dd>
                  </div>
                  {r.job_id !== null && (
                    <div>
                      <dt>job</dt>
                      <dd>{r.job_id}</dd>
                    </div>
                  )}
                </dl>
              </section>
              <section className="card">
                <h2>Durability and cache</h2>
                <DurabilityBadges run={r} />
                <dl className="kv">
                  <div>
                    <dt>fsync policy</dt>
                    <dd>{r.fsync_policy ?? "not recorded"}</dd>
                  </div>
                  <div>
                    <dt>O_DIRECT</dt>
                    <dd>{formatValue(r.o_direct)}</dd>
                  </div>
                  <div>
                    <dt>sync mount</dt>
                    <dd>{formatValue(r.sync_mount)}</dd>
                  </div>
                  <div>
                    <dt>on memory</dt>
                    <dd>{r.memory_backed === null ? "not recorded" : formatValue(r.memory_backed)}</dd>
                  </div>
                  <div>
                    <dt>write cache</dt>
                    <dd>{r.write_cache ?? "not recorded"}</dd>
                  </div>
                  <div>
                    <dt>flushes reach the device</dt>
                    <dd>{r.flush_to_device === null ? "not recorded" : formatValue(r.flush_to_device)}</dd>
                  </div>
                  <div>
                    <dt>cold caches by</dt>
                    <dd>{r.cold_method ?? "not recorded"}</dd>
                  </div>
                </dl>
              </section>
              <section className="card">
                <h2>Parameters and labels</h2>
                <h3>parameters</h3>
                <KeyValues data={r.parameters} empty="none" />
                <h3>labels</h3>
                <KeyValues data={r.labels} empty="none" />
              </section>
            </div>
            <section className="card">
              <h2>Results</h2>
              <Results run={r} />
            </section>
            <section className="card">
              <h2>Environment</h2>
              {r.environment ? (
                <>
                  <KeyValues data={Object.fromEntries(KEY_ENVIRONMENT.filter((k) => k in r.environment!.data).map((k) => [k, r.environment!.data[k]]))} empty="none of the usual facts" />
                  <details data-testid="raw-environment">
                    <summary>Everything the agent recorded ({Object.keys(r.environment.data).length} keys)</summary>
                    <KeyValues data={r.environment.data} empty="empty" />
                  </details>
                </>
              ) : (
                <p className="muted">The agent recorded no environment.</p>
              )}
            </section>
            <section className="card">
              <details data-testid="raw-meta">
                <summary>Raw meta: repetitions, load and pressure snapshots, tool output ({Object.keys(r.meta).length} keys)</summary>
                <KeyValues data={r.meta} empty="none" />
              </details>
            </section>
          </>
        )}
      </QueryView>
    </div>
  );
}
