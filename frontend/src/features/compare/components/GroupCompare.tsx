import { Fragment, useState, type ReactNode } from "react";
import { Link, useSearchParams } from "react-router-dom";
import { Empty, QueryView } from "../../../components/ui/States";
import { ChipsInput } from "../../../components/ui/ChipsInput";
import { useChoiceList } from "../../../components/ui/ChoiceList";
import { valueChoices } from "../../../components/ui/choices";
import { plural } from "../../../lib/format";
import { humanValue, storedValue } from "../../../lib/units";
import { DimensionInput, FilterEditor, useCatalog } from "../../explore";
import { useGroupCompare } from "../api/get-group-compare";
import { groupCompareSearch, type GroupCompare as Data, type GroupCompareState } from "../group";
import { unpairedGroups } from "../unpaired";
import { DurabilityWarning } from "./DurabilityWarning";
import { GroupMetricCell } from "./GroupMetricCell";
import { Legend } from "./Legend";
import { MetricPicker } from "./MetricPicker";
import { SeriesBreakdown } from "./SeriesBreakdown";
import { paths } from "../../../lib/paths";

/** The groups: values of `by`, the stored ones offered (sizes in their units), any other typed;
 * a value typed in human units (128k) is kept as the stored one it means. */
function ValuesPicker({ by, values, known, onChange }: { by: string; values: string[]; known: string[]; onChange: (values: string[]) => void }) {
  return (
    <fieldset className="field filters">
      <legend>groups (the first is the baseline)</legend>
      <ChipsInput
        label="add a group"
        values={values}
        onChange={onChange}
        choices={valueChoices(by, known)}
        normalize={(typed) => storedValue(by, typed, known)}
        show={(v, i) => `${humanValue(by, v)}${i === 0 ? " (baseline)" : ""}`}
        placeholder="choose two or more values"
        splitOnComma={false}
        testId="group-values"
      />
    </fieldset>
  );
}

export function GroupTable({ data }: { data: Data }) {
  const [open, setOpen] = useState<string[]>([]);
  const toggle = (m: string) => setOpen((o) => (o.includes(m) ? o.filter((x) => x !== m) : [...o, m]));
  return (
    <table className="table compare" data-testid="group-compare-table">
      <thead>
        <tr>
          <th>metric</th>
          {data.groups.map((g, i) => (
            <th key={g.value} className="num">
              {data.by} = {humanValue(data.by, g.value)}
              <div className="muted small">
                {i === 0 ? "baseline · " : ""}
                {plural(g.runs, "run")}
              </div>
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {data.metrics.map((m) => (
          <Fragment key={m.metric}>
            <tr>
              <th className="mono">
                {m.metric}
                <div className="muted small">
                  {m.unit}, {m.direction} is better
                </div>
                {m.split && (
                  <div className="small" data-testid="split-note">
                    the series disagree: split by <strong>{m.split.dimension}</strong>
                  </div>
                )}
                <button type="button" className="link-button small" aria-expanded={open.includes(m.metric)} onClick={() => toggle(m.metric)}>
                  {open.includes(m.metric) ? "▾" : "▸"} {m.pairs.length} series one by one
                </button>
              </th>
              {m.cells.map((_, i) => (
                <GroupMetricCell key={i} metric={m} index={i} reasons={data.reasons} />
              ))}
            </tr>
            {open.includes(m.metric) && (
              <tr>
                <td colSpan={data.groups.length + 1}>
                  <SeriesBreakdown metric={m} data={data} />
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

/** Each group with nothing to compare, and why; with the one-click pairing when keys keep it apart. */
function Unpaired({ data, fixLink, note }: { data: Data; fixLink?: (pairIgnore: string[]) => string; note?: ReactNode }) {
  const items = unpairedGroups(data);
  if (items.length === 0) return null;
  const noRuns = items.some((u) => u.pairIgnore === null && u.reason.startsWith("no runs"));
  return (
    <>
      <ul className="unpaired small" data-testid="unpaired">
        {items.map((u) => (
          <li key={u.value}>
            {u.reason}
            {u.pairIgnore && fixLink && (
              <>
                {" "}
                (
                <Link to={fixLink(u.pairIgnore)} data-testid="pair-fix">
                  pair ignoring {u.pairIgnore.join(", ")}
                </Link>
                )
              </>
            )}
            {u.pairIgnore && !fixLink && ` (pair ignoring ${u.pairIgnore.join(", ")} pairs them)`}
          </li>
        ))}
      </ul>
      {note && noRuns && (
        <p className="small" data-testid="empty-note">
          {note}
        </p>
      )}
    </>
  );
}

/**
 * A group compare's answer as its page draws it: the durability banner, the judged table (or why
 * there is none), the groups left without a comparison and why, and how to read it. Reports draw
 * their group compare blocks with this same component, so they show what the page shows.
 */
export function GroupResult({ data, fixLink, note }: { data: Data; fixLink?: (pairIgnore: string[]) => string; note?: ReactNode }) {
  // The server's pairing that pairs every group: one call to action; the list below then says
  // why each group is apart without repeating the link.
  const hint = data.pair_hint && fixLink ? data.pair_hint : null;
  return (
    <>
      <DurabilityWarning warning={data.warning} />
      {hint && (
        <div className="banner warn" data-testid="pair-hint">
          Some groups have no series in common with the baseline: their series differ in {hint.filter((p) => !data.pair_ignore.includes(p)).join(", ")}.{" "}
          <Link to={fixLink!(hint)}>Pair ignoring {hint.join(", ")}</Link>
        </div>
      )}
      <section className="card">
        {data.metrics.length === 0 ? (
          <Empty
            title={`No runs of ${data.workload} have ${data.by} = ${data.values.join(" or ")}${data.filters.length ? ` where ${data.filters.join(", ")}` : ""}.`}
          >
            <Unpaired data={data} note={note} />
          </Empty>
        ) : (
          <>
            <Unpaired data={data} fixLink={hint ? undefined : fixLink} note={note} />
            <GroupTable data={data} />
          </>
        )}
        <p className="muted small">
          Runs are paired series by series: a series is the runs that share agent, target, parameters and labels; the pairs differ only in {data.by}
          {data.pair_ignore.length > 0 && ` (and ${data.pair_ignore.join(", ")}, left out of the pairing)`}. Each value is the median of its series&apos;
          medians over every sample; each change is the median of the per-series changes, and a series agrees when its own change is real in the same direction.
          Where the series disagree, the headline is given per subset of the dimension that separates them, and the pooled figure (which no run has) follows. A
          memory-backed or no-flush side against a durable one is not comparable (durability).
        </p>
        <Legend minEffectPct={data.min_effect_pct} confidence={data.confidence} />
      </section>
    </>
  );
}

export function GroupCompare({ state }: { state: GroupCompareState }) {
  const [, setParams] = useSearchParams();
  const catalog = useCatalog(state.workload);
  const result = useGroupCompare(state);
  const dims = (catalog.data?.dimensions ?? []).filter((d) => d.kind !== "time");
  const known = dims.find((d) => d.name === state.by)?.values ?? [];
  // A plain name (not label.NAME or env.KEY) that no run of the workload has: there is nothing to
  // choose, so say so, and what there is.
  const absent = catalog.data !== undefined && !state.by.includes(".") && !dims.some((d) => d.name === state.by);
  const own = dims
    .filter((d) => d.kind === "label" || d.kind === "parameter")
    .map((d) => d.name)
    .sort();
  const [pairList, pairChoices] = useChoiceList(
    dims.map((d) => ({ value: d.name, label: d.kind })),
    "pair-ignore-choices",
  );
  const update = (patch: Partial<GroupCompareState>) => setParams(groupCompareSearch({ ...state, ...patch }));
  return (
    <>
      <section className="card">
        <div className="toolbar">
          <label className="field">
            <span>workload</span>
            <select value={state.workload} onChange={(e) => update({ workload: e.target.value, values: [], filter: [], metric: [] })}>
              {(catalog.data?.workloads ?? [state.workload]).map((w) => (
                <option key={w}>{w}</option>
              ))}
            </select>
          </label>
          <DimensionInput label="groups by" value={state.by} dimensions={dims} onChange={(by) => update({ by, values: [], pairIgnore: null })} />
          <ValuesPicker by={state.by} values={state.values} known={known} onChange={(values) => update({ values })} />
        </div>
        <div className="toolbar">
          <FilterEditor filters={state.filter} dimensions={dims} onChange={(filter) => update({ filter })} />
          <MetricPicker
            key={state.metric.join(",")}
            value={state.metric}
            metrics={(catalog.data?.metrics ?? []).map((m) => m.name)}
            onChange={(metric) => update({ metric })}
          />
          <label className="field">
            <span>pair ignoring</span>
            <input
              aria-label="pair ignoring"
              list={pairList}
              key={(state.pairIgnore ?? []).join(",")}
              defaultValue={(state.pairIgnore ?? []).join(", ")}
              placeholder="default"
              onBlur={(e) => {
                const v = e.target.value
                  .split(",")
                  .map((s) => s.trim())
                  .filter(Boolean);
                update({ pairIgnore: v.length ? v : null });
              }}
            />
          </label>
          {pairChoices}
          <label className="field">
            <span>min. effect %</span>
            <input
              type="number"
              min={0}
              step={1}
              aria-label="minimum effect"
              key={String(state.minEffect)}
              defaultValue={state.minEffect ?? ""}
              placeholder="5"
              onBlur={(e) => update({ minEffect: e.target.value === "" ? null : Number(e.target.value) })}
            />
          </label>
        </div>
      </section>
      {absent ? (
        <Empty title={`No run of ${state.workload} has ${state.by}.`}>
          <p>Group by {own.length > 0 ? `one of its labels or parameters (${own.join(", ")}), or ` : ""}a built-in dimension such as fs_type or agent.</p>
        </Empty>
      ) : state.values.length < 2 ? (
        <Empty title={`Choose two or more values of ${state.by} to compare.`} />
      ) : (
        <QueryView query={result} what="the comparison">
          {(data) => <GroupResult data={data} fixLink={(pairIgnore) => paths.compare(groupCompareSearch({ ...state, pairIgnore }))} />}
        </QueryView>
      )}
    </>
  );
}
