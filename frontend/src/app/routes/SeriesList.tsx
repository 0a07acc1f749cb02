import { useSearchParams } from "react-router-dom";
import { AgentHelp } from "../../components/ui/AgentHelp";
import { FilterInput } from "../../components/ui/FilterInput";
import { Empty, QueryView } from "../../components/ui/States";
import { useAgentChoices } from "../../features/agents";
import { usePickers } from "../../features/explore";
import { SERIES_SORTS, useSeriesList, type SeriesSort } from "../../features/series/api/get-series";
import { SeriesTable } from "../../features/series/components/SeriesTable";
import { describePage, pageStart } from "../../lib/format";

const PAGE = 100;
// Each order as the page says it; the list opens on the newest (reference-only series last).
const ORDERS: Record<SeriesSort, [string, string]> = {
  newest: ["newest point first", "newest point first, reference figures last"],
  alerts: ["most open alerts first", "most open alerts first, then newest point first"],
  points: ["most points first", "most points first"],
  name: ["by name", "by workload, metric, agent and target"],
  id: ["in the order they first appeared", "in the order they first appeared"],
};

export function SeriesList() {
  const [params, setParams] = useSearchParams();
  const workload = params.get("workload") ?? "";
  const metric = params.get("metric") ?? "";
  const agent = params.get("agent") ?? "";
  const cursor = params.get("cursor");
  const askedSort = params.get("sort");
  const sort: SeriesSort = (SERIES_SORTS as readonly string[]).includes(askedSort ?? "") ? (askedSort as SeriesSort) : "newest";
  // Where this page starts in the whole list (null: not known).
  const at = pageStart(params);
  const filtered = Boolean(workload || metric || agent);
  const pickers = usePickers(workload).data;
  const everyAgent = useAgentChoices().data;
  const agents = workload ? pickers?.agents : everyAgent;
  const series = useSeriesList({
    workload: workload || undefined,
    metric: metric || undefined,
    agent: agent || undefined,
    sort,
    limit: PAGE,
    cursor: cursor ?? undefined,
  });
  // A filter starts the list again from its first page.
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    next.delete("cursor");
    next.delete("at");
    setParams(next);
  };
  const page = (nextCursor: number | string | null, from: number | null) => {
    const next = new URLSearchParams(params);
    next.delete("cursor");
    next.delete("at");
    if (nextCursor !== null) {
      next.set("cursor", String(nextCursor));
      if (from !== null) next.set("at", String(from));
    }
    setParams(next);
  };
  return (
    <div className="page">
      <div className="page-head">
        <h1>Series</h1>
      </div>
      <p className="muted">
        A series is one metric's history for one workload, agent, target and set of parameters; a new version is a new point, not a new series.
      </p>
      <form className="toolbar" onSubmit={(e) => e.preventDefault()}>
        <FilterInput label="workload" value={workload} onApply={(v) => set("workload", v)} choices={pickers?.workloads} testId="series-workload" />
        <FilterInput label="metric" value={metric} onApply={(v) => set("metric", v)} choices={pickers?.metrics} testId="series-metric" />
        <FilterInput label="agent" value={agent} onApply={(v) => set("agent", v)} choices={agents} testId="series-agent" />
        <label className="field inline">
          <span>order</span>
          <select aria-label="order" value={sort} onChange={(e) => set("sort", e.target.value === "newest" ? "" : e.target.value)}>
            {SERIES_SORTS.map((o) => (
              <option key={o} value={o}>
                {ORDERS[o][0]}
              </option>
            ))}
          </select>
        </label>
        {filtered && (
          <button type="button" className="button small" onClick={() => setParams(new URLSearchParams())}>
            Clear filters
          </button>
        )}
      </form>
      <section className="card">
        <QueryView query={series} what="series">
          {(found) =>
            found.items.length === 0 ? (
              <Empty title={cursor ? "No more series." : filtered ? "No series matches these filters." : "No series yet."}>
                {cursor ? (
                  <button type="button" className="button small" onClick={() => page(null, 1)}>
                    ← First page
                  </button>
                ) : (
                  !filtered && <AgentHelp />
                )}
              </Empty>
            ) : (
              <>
                <p className="muted" data-testid="series-count">
                  {describePage({ noun: ["series", "series"], total: found.total, at, shown: found.items.length, filtered, order: ORDERS[sort][1] })}
                </p>
                <SeriesTable series={found.items} />
                {(cursor || found.next_cursor !== null) && (
                  <div className="pager">
                    {cursor && (
                      <button type="button" className="button small" onClick={() => page(null, 1)}>
                        ← First page
                      </button>
                    )}
                    {found.next_cursor !== null && (
                      <button type="button" className="button small" onClick={() => page(found.next_cursor, at === null ? null : at + found.items.length)}>
                        Next →
                      </button>
                    )}
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
