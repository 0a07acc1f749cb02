import { useSearchParams } from "react-router-dom";
import { AgentHelp } from "../../components/ui/AgentHelp";
import { FilterInput } from "../../components/ui/FilterInput";
import { Empty, QueryView } from "../../components/ui/States";
import { useSeriesList } from "../../features/series/api/get-series";
import { SeriesTable } from "../../features/series/components/SeriesTable";

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
        <FilterInput label="workload" value={workload} onApply={(v) => set("workload", v)} />
        <FilterInput label="metric" value={metric} onApply={(v) => set("metric", v)} />
        <FilterInput label="agent" value={agent} onApply={(v) => set("agent", v)} />
      </form>
      <section className="card">
        <QueryView query={series} what="series">
          {(page) =>
            page.items.length === 0 ? (
              <Empty title={workload || metric || agent ? "No series matches these filters." : "No series yet."}>{!(workload || metric || agent) && <AgentHelp />}</Empty>
            ) : (
              <>
                <SeriesTable series={page.items} />
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
