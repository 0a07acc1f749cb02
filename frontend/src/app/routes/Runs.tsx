import { useState } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import { FilterInput } from "../../components/ui/FilterInput";
import { useRuns } from "../../features/runs/api/get-runs";
import { RunsList } from "../../features/runs/components/RunsList";
import { pageStart } from "../../lib/format";

export function Runs() {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const workload = params.get("workload") ?? "";
  const agent = params.get("agent") ?? "";
  const cursor = params.get("cursor") ?? "";
  const status = params.get("status") ?? "";
  const label = params.getAll("label");
  const [selected, setSelected] = useState<string[]>([]);
  const runs = useRuns({
    workload: workload || undefined, agent: agent || undefined, status: status || undefined, label, cursor: cursor || undefined, limit: 50,
  });
  const filtered = Boolean(workload || agent || status || label.length > 0);

  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    next.delete("cursor");
    next.delete("at");
    setParams(next);
  };
  // Where this page starts in the whole list (null: not known).
  const at = pageStart(params);
  const pageLink = (to: string, from: number | null) => {
    const next = new URLSearchParams([...params].filter(([k]) => k !== "cursor" && k !== "at"));
    if (to) {
      next.append("cursor", to);
      if (from !== null) next.append("at", String(from));
    }
    return `/runs?${next}`;
  };
  // The list with a label's filter added or taken away (from the first page).
  const withLabels = (labels: string[]) => {
    const next = new URLSearchParams([...params].filter(([k]) => !["label", "cursor", "at"].includes(k)));
    for (const l of labels) next.append("label", l);
    return next;
  };
  const labelLink = (pair: string) => `/runs?${withLabels(label.includes(pair) ? label : [...label, pair])}`;
  const toggle = (uuid: string) => setSelected((s) => (s.includes(uuid) ? s.filter((x) => x !== uuid) : [...s, uuid]));

  return (
    <div className="page">
      <div className="page-head">
        <h1>Runs</h1>
        <div className="actions">
          <button type="button" className="button primary" disabled={selected.length < 2} onClick={() => navigate(`/compare?runs=${selected.join(",")}`)}>
            Compare {selected.length >= 2 ? `${selected.length} runs` : "(select 2 or more)"}
          </button>
        </div>
      </div>
      <form className="toolbar" onSubmit={(e) => e.preventDefault()}>
        <FilterInput label="workload" value={workload} onApply={(v) => set("workload", v)} />
        <FilterInput label="agent" value={agent} onApply={(v) => set("agent", v)} />
        <label className="field inline">
          <span>status</span>
          <select value={status} onChange={(e) => set("status", e.target.value)}>
            <option value="">any</option>
            <option value="ok">ok</option>
            <option value="failed">failed</option>
            <option value="partial">partial</option>
          </select>
        </label>
        {label.map((l) => (
          <span key={l} className="chip" data-testid="label-filter">
            label {l}
            <button type="button" aria-label={`remove label ${l}`} onClick={() => setParams(withLabels(label.filter((x) => x !== l)))}>
              ×
            </button>
          </span>
        ))}
        {filtered && (
          <button type="button" className="button small" onClick={() => setParams(new URLSearchParams())}>
            Clear filters
          </button>
        )}
      </form>
      {selected.length > 0 && <p className="muted">The first run you select is the baseline of the comparison.</p>}
      <section className="card">
        <RunsList runs={runs} filtered={filtered} selected={selected} onToggle={toggle} pageLink={pageLink} paged={Boolean(cursor)} at={at} labelLink={labelLink} />
      </section>
    </div>
  );
}
