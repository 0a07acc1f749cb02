import { useState } from "react";
import { Link, useSearchParams } from "react-router-dom";
import { downloadCsv } from "../../api/client";
import { Empty, ErrorState, QueryView } from "../../components/ui/States";
import { useCompare, type Compare as CompareData } from "../../features/compare/api/get-compare";
import { diffTone, parseRuns } from "../../features/compare/diff";
import { useRuns } from "../../features/runs/api/get-runs";
import { RunsTable } from "../../features/runs/components/RunsTable";
import { DurabilityBadges } from "../../features/runs/components/DurabilityBadges";
import { formatNumber, formatPercent, formatTime, formatValue, shortId } from "../../lib/format";
import { GroupCompare } from "../../features/compare/components/GroupCompare";
import { groupCompareSearch, parseGroupCompare } from "../../features/compare/group";

function Differences({ title, items, runs }: { title: string; items: CompareData["durability"]; runs: CompareData["runs"] }) {
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

function CompareTable({ data }: { data: CompareData }) {
  return (
    <table className="table compare" data-testid="compare-table">
      <thead>
        <tr>
          <th>metric</th>
          {data.runs.map((r, i) => (
            <th key={r.uuid} className="num">
              <Link to={`/runs/${r.uuid}`} className="mono">
                {shortId(r.uuid)}
              </Link>
              <div className="muted small">{i === 0 ? "baseline" : formatTime(r.started_at).slice(0, 10)}</div>
              <div className="small">{Object.entries(r.labels).map(([k, v]) => `${k}=${v}`).join(" ")}</div>
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
              const tone = diffTone(m.diff_pct[i], m.better[i], i === 0);
              const spread = m.spread[i];
              return (
                <td key={i} className={`num tone-${tone}`} data-tone={tone}>
                  <div className="strong">{formatNumber(v)}</div>
                  {spread && (
                    <div className="muted small">
                      {formatNumber(spread[0])}–{formatNumber(spread[1])}
                    </div>
                  )}
                  {i > 0 && <div className="diff">{formatPercent(m.diff_pct[i])}</div>}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Picker({ initial }: { initial: string[] }) {
  const [, setParams] = useSearchParams();
  const [selected, setSelected] = useState<string[]>(initial);
  const [workload, setWorkload] = useState("");
  const runs = useRuns({ workload: workload || undefined, limit: 25 });
  const toggle = (uuid: string) => setSelected((s) => (s.includes(uuid) ? s.filter((x) => x !== uuid) : [...s, uuid]));
  return (
    <section className="card">
      <div className="card-head">
        <h2>Or pick single runs</h2>
        <button type="button" className="button primary" disabled={selected.length < 2} onClick={() => setParams({ runs: selected.join(",") })}>
          Compare {selected.length} runs
        </button>
      </div>
      <p className="muted">
        The first run you pick is the baseline: the others are shown as a change against it. Explore's point panel and the Runs page can start a
        comparison too.
      </p>
      <label className="field inline">
        <span>workload</span>
        <input value={workload} onChange={(e) => setWorkload(e.target.value.trim())} placeholder="any" />
      </label>
      <QueryView query={runs} what="runs">
        {(page) => (page.items.length === 0 ? <Empty title="No runs to compare yet." /> : <RunsTable runs={page.items} selected={selected} onToggle={toggle} />)}
      </QueryView>
    </section>
  );
}

function GroupStart() {
  const [params, setParams] = useSearchParams();
  const [workload, setWorkload] = useState(params.get("workload") ?? "");
  const [by, setBy] = useState("version");
  return (
    <section className="card">
      <h2>Compare two groups</h2>
      <p className="muted">
        Every metric of a workload, for two values of a label or parameter (a filesystem version A against B, say): medians over each group&apos;s runs.
      </p>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          if (workload && by) setParams(groupCompareSearch({ workload, by, a: "", b: "", filter: [] }));
        }}
      >
        <label className="field inline">
          <span>workload</span>
          <input value={workload} onChange={(e) => setWorkload(e.target.value.trim())} placeholder="smallfile" />
        </label>
        <label className="field inline">
          <span>grouped by</span>
          <input value={by} onChange={(e) => setBy(e.target.value.trim())} placeholder="version" />
        </label>
        <button type="submit" className="button" disabled={!workload || !by}>
          Choose the two groups
        </button>
      </form>
    </section>
  );
}

export function Compare() {
  const [params] = useSearchParams();
  const runs = parseRuns(params.get("runs"));
  const compare = useCompare(runs);
  const [csvError, setCsvError] = useState<unknown>(null);
  const groups = parseGroupCompare(params);
  if (groups) {
    return (
      <div className="page">
        <div className="page-head">
          <h1>Compare two groups</h1>
          <div className="actions">
            <Link className="button" to="/compare">
              Compare single runs
            </Link>
          </div>
        </div>
        <GroupCompare state={groups} />
      </div>
    );
  }
  if (runs.length < 2) {
    const pick = parseRuns(params.get("pick"));
    return (
      <div className="page">
        <div className="page-head">
          <h1>Compare</h1>
        </div>
        <GroupStart />
        <Picker key={pick.join(",")} initial={pick} />
      </div>
    );
  }
  return (
    <div className="page">
      <div className="page-head">
        <h1>Compare {runs.length} runs</h1>
        <div className="actions">
          <button
            type="button"
            className="button"
            onClick={() => {
              setCsvError(null);
              downloadCsv("/compare.csv", { runs: runs.join(",") }, "compare.csv").catch(setCsvError);
            }}
          >
            Download CSV
          </button>
          <Link className="button" to={`/compare?pick=${runs[0]}`}>
            Change runs
          </Link>
        </div>
      </div>
      {csvError !== null && <ErrorState error={csvError} what="the CSV" />}
      <QueryView query={compare} what="the comparison">
        {(data) => (
          <>
            {data.durability_differs && (
              <div className="banner warn" role="alert" data-testid="durability-warning">
                <strong>These runs do not give the same durability.</strong>{" "}
                {data.warning ?? "Their fsync, cache or mount settings differ: a faster run that skipped a flush is not comparable to a safe one."}
              </div>
            )}
            <section className="card">
              <div className="runs-strip">
                {data.runs.map((r, i) => (
                  <div key={r.uuid} className="run-tile">
                    <div>
                      <Link to={`/runs/${r.uuid}`} className="mono">
                        {shortId(r.uuid)}
                      </Link>{" "}
                      {i === 0 && <span className="badge">baseline</span>}
                    </div>
                    <div className="small">
                      {r.workload} on {r.agent} · {formatTime(r.started_at)}
                    </div>
                    <DurabilityBadges run={r} />
                  </div>
                ))}
              </div>
              {data.metrics.length === 0 ? <Empty title="These runs share no metric." /> : <CompareTable data={data} />}
              <p className="muted small legend">
                <span className="tone-much-better swatch" /> much better (≥10 %) <span className="tone-better swatch" /> better{" "}
                <span className="tone-same swatch" /> within 2 % <span className="tone-worse swatch" /> worse <span className="tone-much-worse swatch" /> much worse
              </p>
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
        )}
      </QueryView>
    </div>
  );
}
