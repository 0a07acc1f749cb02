import { useState } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import { useRuns } from "../../features/runs/api/get-runs";
import { RunsFilters } from "../../features/runs/components/RunsFilters";
import { RunsList } from "../../features/runs/components/RunsList";
import { pageStart } from "../../lib/format";
import { paths } from "../../lib/paths";

export function Runs() {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const workload = params.get("workload") ?? "";
  const agent = params.get("agent") ?? "";
  const cursor = params.get("cursor") ?? "";
  const status = params.get("status") ?? "";
  const label = params.getAll("label");
  const param = params.getAll("param");
  const [selected, setSelected] = useState<string[]>([]);
  const runs = useRuns({
    workload: workload || undefined,
    agent: agent || undefined,
    status: status || undefined,
    label,
    param,
    cursor: cursor || undefined,
    limit: 50,
  });
  const filtered = Boolean(workload || agent || status || label.length > 0 || param.length > 0);

  // Where this page starts in the whole list (null: not known).
  const at = pageStart(params);
  const pageLink = (to: string, from: number | null) => {
    const next = new URLSearchParams([...params].filter(([k]) => k !== "cursor" && k !== "at"));
    if (to) {
      next.append("cursor", to);
      if (from !== null) next.append("at", String(from));
    }
    return paths.runs(next);
  };
  // The list with a label's filter added or taken away (from the first page).
  const withLabels = (labels: string[]) => {
    const next = new URLSearchParams([...params].filter(([k]) => !["label", "cursor", "at"].includes(k)));
    for (const l of labels) next.append("label", l);
    return next;
  };
  const labelLink = (pair: string) => paths.runs(withLabels(label.includes(pair) ? label : [...label, pair]));
  const toggle = (uuid: string) => setSelected((s) => (s.includes(uuid) ? s.filter((x) => x !== uuid) : [...s, uuid]));

  return (
    <div className="page">
      <div className="page-head">
        <h1>Runs</h1>
        <div className="actions">
          <button type="button" className="button primary" disabled={selected.length < 2} onClick={() => navigate(paths.compare({ runs: selected.join(",") }))}>
            Compare {selected.length >= 2 ? `${selected.length} runs` : "(select 2 or more)"}
          </button>
        </div>
      </div>
      <RunsFilters
        state={{ workload, agent, status, label, param }}
        onChange={(patch) => {
          const next = new URLSearchParams([...params].filter(([k]) => k !== "cursor" && k !== "at"));
          for (const [key, value] of Object.entries(patch)) {
            next.delete(key);
            for (const v of Array.isArray(value) ? value : [value]) if (v) next.append(key, v);
          }
          setParams(next);
        }}
        onClear={() => setParams(new URLSearchParams())}
      />
      {selected.length > 0 && <p className="muted">The first run you select is the baseline of the comparison.</p>}
      <section className="card">
        <RunsList
          runs={runs}
          filtered={filtered}
          selected={selected}
          onToggle={toggle}
          pageLink={pageLink}
          paged={Boolean(cursor)}
          at={at}
          labelLink={labelLink}
        />
      </section>
    </div>
  );
}
