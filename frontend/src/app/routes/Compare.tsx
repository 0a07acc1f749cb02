import { Link, useSearchParams } from "react-router-dom";
import { CsvDownload } from "../../components/ui/CsvDownload";
import { QueryView } from "../../components/ui/States";
import { apiUrl } from "../../api/client";
import { compareApiQuery, useCompare, type CompareQuery } from "../../features/compare/api/get-compare";
import { GroupStart, RunPicker } from "../../features/compare/components/CompareStart";
import { GroupCompare } from "../../features/compare/components/GroupCompare";
import { MetricPicker } from "../../features/compare/components/MetricPicker";
import { RunCompare } from "../../features/compare/components/RunCompare";
import { parseRuns, parseRunsCompare } from "../../features/compare/diff";
import { AddToReport, compareGroupsBlock, compareRunsBlock } from "../../features/reports";
import { groupCompareQuery, parseGroupCompare, type GroupCompareState } from "../../features/compare/group";
import { paths } from "../../lib/paths";

function GroupsPage({ state }: { state: GroupCompareState }) {
  return (
    <div className="page">
      <div className="page-head">
        <h1>Compare groups by {state.by}</h1>
        <div className="actions">
          {state.values.length >= 2 && (
            <CsvDownload url={apiUrl("/compare/groups.csv", { query: groupCompareQuery(state) })} filename={`${state.workload}-by-${state.by}.csv`} />
          )}
          {state.values.length >= 2 && <AddToReport block={compareGroupsBlock(state)} />}
          <Link className="button" to={paths.compare()}>
            Compare single runs
          </Link>
        </div>
      </div>
      <GroupCompare state={state} />
    </div>
  );
}

function RunsPage({ query }: { query: CompareQuery }) {
  const [params, setParams] = useSearchParams();
  const compare = useCompare(query);
  const setMetrics = (metric: string[]) => {
    const next = new URLSearchParams(params);
    next.delete("metric");
    for (const m of metric) next.append("metric", m);
    setParams(next);
  };
  return (
    <div className="page">
      <div className="page-head">
        <h1>Compare {query.runs.length} runs</h1>
        <div className="actions">
          <CsvDownload url={apiUrl("/compare.csv", { query: compareApiQuery(query) })} filename="compare.csv" />
          <AddToReport block={compareRunsBlock(query.runs, query.metric, query.minEffect)} />
          <Link className="button" to={paths.compare({ pick: query.runs.join(",") })}>
            Change runs
          </Link>
        </div>
      </div>
      <div className="toolbar">
        <MetricPicker key={query.metric.join(",")} value={query.metric} metrics={compare.data?.metrics.map((m) => m.metric) ?? []} onChange={setMetrics} />
      </div>
      <QueryView query={compare} what="the comparison">
        {(data) => <RunCompare data={data} />}
      </QueryView>
    </div>
  );
}

export function Compare() {
  const [params] = useSearchParams();
  const groups = parseGroupCompare(params);
  if (groups) return <GroupsPage state={groups} />;
  const runs = parseRunsCompare(params);
  if (runs) return <RunsPage query={runs} />;
  const pick = parseRuns(params.get("pick"));
  return (
    <div className="page">
      <div className="page-head">
        <h1>Compare</h1>
      </div>
      <GroupStart workload={params.get("workload") ?? ""} />
      <RunPicker key={pick.join(",")} initial={pick} />
    </div>
  );
}
