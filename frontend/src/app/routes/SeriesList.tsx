import { Link, useSearchParams } from "react-router-dom";
import { useSeriesList } from "../../features/series/api/get-series";
import { Empty, QueryView } from "../../components/ui/States";
import { AgentHelp } from "../../components/ui/AgentHelp";
import { formatTime, formatValue } from "../../lib/format";

export function SeriesList() {
  const [params, setParams] = useSearchParams();
  const workload = params.get("workload") ?? "";
  const metric = params.get("metric") ?? "";
  const agent = params.get("agent") ?? "";
  const cursor = params.get("cursor");
  const series = useSeriesList({ workload: workload || undefined, metric: metric || undefined, agent: agent || undefined, limit: 100, cursor: cursor ? Number(cursor) : undefined });
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    next.delete("cursor");
    setParams(next);
  };
  return (
    <div className="page">
      <div className="page-head">
        <h1>Series</h1>
      </div>
      <p className="muted">A series is one metric's history for one workload, agent, target and set of parameters; a new version is a new point, not a new series.</p>
      <form className="toolbar" onSubmit={(e) => e.preventDefault()}>
        {(
          [
            ["workload", workload],
            ["metric", metric],
            ["agent", agent],
          ] as const
        ).map(([key, value]) => (
          <label key={key} className="field inline">
            <span>{key}</span>
            <input key={`${key}-${value}`} defaultValue={value} onBlur={(e) => set(key, e.target.value.trim())} onKeyDown={(e) => e.key === "Enter" && set(key, e.currentTarget.value.trim())} />
          </label>
        ))}
      </form>
      <section className="card">
      <QueryView query={series} what="series">
        {(page) =>
          page.items.length === 0 ? (
            <Empty title={workload || metric || agent ? "No series matches these filters." : "No series yet."}>{!(workload || metric || agent) && <AgentHelp />}</Empty>
          ) : (
            <>
              <table className="table" data-testid="series-table">
                <thead>
                  <tr>
                    <th>workload</th>
                    <th>metric</th>
                    <th>agent</th>
                    <th>target</th>
                    <th>parameters</th>
                    <th>labels</th>
                    <th className="num">points</th>
                    <th>last</th>
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((s) => (
                    <tr key={s.id}>
                      <td>{s.workload}</td>
                      <td className="mono">
                        <Link to={`/series/${s.id}`}>{s.metric}</Link>
                      </td>
                      <td>{s.agent}</td>
                      <td className="mono ellipsis">{s.target}</td>
                      <td className="mono small">
                        {Object.entries(s.parameters)
                          .map(([k, v]) => `${k}=${formatValue(v)}`)
                          .join(" ")}
                      </td>
                      <td className="mono small">
                        {Object.entries(s.labels)
                          .map(([k, v]) => `${k}=${v}`)
                          .join(" ")}
                      </td>
                      <td className="num">{s.points}</td>
                      <td className="nowrap">{formatTime(s.last_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {page.next_cursor !== null && (
                <div className="pager">
                  <button type="button" className="button small" onClick={() => set("cursor", String(page.next_cursor))}>
                    More →
                  </button>
                </div>
              )}
            </>
          )
        }
      </QueryView>
      </section>
    </div>
  );
}
