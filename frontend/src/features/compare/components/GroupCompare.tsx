import { useMemo } from "react";
import { useSearchParams } from "react-router-dom";
import { Empty, ErrorState, Loading } from "../../../components/ui/States";
import { useCatalog } from "../../explore/api/get-catalog";
import { DimensionInput } from "../../explore/components/DimensionInput";
import { formatNumber, formatPercent, plural } from "../../../lib/format";
import { useGroupCompare } from "../api/get-group-compare";
import { diffTone } from "../diff";
import { durabilityDifferences, groupCompareSearch, groupRows, type GroupCompareState } from "../group";

export function GroupCompare({ state }: { state: GroupCompareState }) {
  const [, setParams] = useSearchParams();
  const catalog = useCatalog(state.workload);
  const metrics = useMemo(() => (catalog.data?.metrics ?? []).map((m) => m.name), [catalog.data]);
  const result = useGroupCompare(state, metrics);
  const dims = (catalog.data?.dimensions ?? []).filter((d) => d.kind !== "time");
  const values = dims.find((d) => d.name === state.by)?.values ?? [];
  const update = (patch: Partial<GroupCompareState>) => setParams(groupCompareSearch({ ...state, ...patch }));
  const rows = useMemo(() => groupRows(result.metrics, state.a, state.b), [result.metrics, state.a, state.b]);
  const durability = useMemo(() => durabilityDifferences(result.byFact, state.a, state.b), [result.byFact, state.a, state.b]);

  return (
    <section className="card">
      <div className="toolbar">
        <label className="field inline">
          <span>workload</span>
          <select value={state.workload} onChange={(e) => update({ workload: e.target.value, a: "", b: "" })}>
            {(catalog.data?.workloads ?? [state.workload]).map((w) => (
              <option key={w}>{w}</option>
            ))}
          </select>
        </label>
        <DimensionInput label="groups by" value={state.by} dimensions={dims} onChange={(by) => update({ by, a: "", b: "" })} />
        {(["a", "b"] as const).map((key) => (
          <label key={key} className="field inline">
            <span>{key === "a" ? "baseline" : "against"}</span>
            <select value={state[key]} onChange={(e) => update({ [key]: e.target.value })}>
              <option value="">choose…</option>
              {values.map((v) => (
                <option key={v}>{v}</option>
              ))}
              {state[key] && !values.includes(state[key]) && <option>{state[key]}</option>}
            </select>
          </label>
        ))}
        {state.filter.map((f) => (
          <span key={f} className="chip">
            {f}
          </span>
        ))}
      </div>
      {catalog.isError ? (
        <ErrorState error={catalog.error} what="the workload's metrics" />
      ) : !result.ready ? (
        catalog.isPending ? <Loading what="the workload's metrics" /> : <Empty title={`Choose two values of ${state.by} to compare.`} />
      ) : result.error ? (
        <ErrorState error={result.error} what="the comparison" />
      ) : result.pending ? (
        <Loading what={`${metrics.length} metrics for both groups`} />
      ) : rows.length === 0 ? (
        <Empty title={`No runs of ${state.workload} have ${state.by} = ${state.a} or ${state.b}.`} />
      ) : (
        <>
          {durability.length > 0 && (
            <div className="banner warn" role="alert" data-testid="durability-warning">
              <strong>The two groups do not give the same durability:</strong>{" "}
              {durability.map((d) => `${d.fact} (${d.a.join(", ")} vs ${d.b.join(", ")})`).join("; ")}. A faster result that skipped a flush or read
              from cache is not comparable to a safe, cold one.
            </div>
          )}
          <table className="table compare" data-testid="group-compare-table">
            <thead>
              <tr>
                <th>metric</th>
                <th className="num">
                  {state.by} = {state.a}
                  <div className="muted small">baseline</div>
                </th>
                <th className="num">
                  {state.by} = {state.b}
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => {
                const tone = diffTone(r.diffPct, r.better);
                return (
                  <tr key={r.metric}>
                    <th className="mono">
                      {r.metric}
                      <div className="muted small">
                        {r.unit}
                        {r.direction ? `, ${r.direction} is better` : ""}
                      </div>
                    </th>
                    <td className="num tone-base">
                      <div className="strong">{formatNumber(r.a?.median)}</div>
                      {r.a && <div className="muted small">{plural(r.a.n, "run")}</div>}
                    </td>
                    <td className={`num tone-${tone}`} data-tone={tone}>
                      <div className="strong">{formatNumber(r.b?.median)}</div>
                      {r.b && <div className="muted small">{plural(r.b.n, "run")}</div>}
                      <div className="diff">{formatPercent(r.diffPct)}</div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <p className="muted small">Each cell is the median over the group's runs (each run's own value being the median of its samples).</p>
        </>
      )}
    </section>
  );
}
