import { useState } from "react";
import { useSearchParams } from "react-router-dom";
import { useChoiceList } from "../../../components/ui/ChoiceList";
import { choicesOf } from "../../../components/ui/choices";
import { CursorPager, useCursorStack } from "../../../components/ui/CursorPager";
import { Empty, QueryView } from "../../../components/ui/States";
import { describePage } from "../../../lib/format";
import { useAgents } from "../../agents";
import { useCatalog } from "../../explore";
import { RunsTable, useRuns } from "../../runs";
import { groupCompareSearch } from "../group";

const PICKER_PAGE = 25;

/** Pick single runs to compare; the first picked is the baseline. Runs are listed newest first,
 * a page at a time, narrowed by workload and agent; what is picked stays picked across pages. */
export function RunPicker({ initial }: { initial: string[] }) {
  const [, setParams] = useSearchParams();
  const [selected, setSelected] = useState<string[]>(initial);
  const [workload, setWorkload] = useState("");
  const [agent, setAgent] = useState("");
  const pages = useCursorStack();
  const runs = useRuns({ workload: workload || undefined, agent: agent || undefined, cursor: pages.cursor || undefined, limit: PICKER_PAGE });
  const catalog = useCatalog("");
  const agents = useAgents();
  const toggle = (uuid: string) => setSelected((s) => (s.includes(uuid) ? s.filter((x) => x !== uuid) : [...s, uuid]));
  const narrow = (set: (value: string) => void) => (value: string) => {
    set(value);
    pages.reset();
  };
  return (
    <section className="card">
      <div className="card-head">
        <h2>Or pick single runs</h2>
        <button type="button" className="button primary" disabled={selected.length < 2} onClick={() => setParams({ runs: selected.join(",") })}>
          {selected.length < 2 ? "Pick 2 or more runs" : `Compare ${selected.length} runs`}
        </button>
      </div>
      <p className="muted">
        The first run you pick is the baseline: the others are shown as a change against it. Explore&apos;s point panel and the Runs page can start a comparison
        too.
      </p>
      <div className="toolbar">
        <label className="field inline">
          <span>workload</span>
          <select value={workload} onChange={(e) => narrow(setWorkload)(e.target.value)}>
            <option value="">any</option>
            {(catalog.data?.workloads ?? []).map((w) => (
              <option key={w}>{w}</option>
            ))}
          </select>
        </label>
        <label className="field inline">
          <span>agent</span>
          <select value={agent} onChange={(e) => narrow(setAgent)(e.target.value)}>
            <option value="">any</option>
            {(agents.data ?? []).map((a) => (
              <option key={a.name}>{a.name}</option>
            ))}
          </select>
        </label>
        {selected.length > 0 && (
          <span className="muted">
            {selected.length} picked, baseline <span className="mono">{selected[0]?.slice(0, 8)}</span>
          </span>
        )}
      </div>
      <QueryView query={runs} what="runs">
        {(page) =>
          page.items.length === 0 ? (
            <Empty title={workload || agent ? "No run matches these filters." : "No runs to compare yet."} />
          ) : (
            <>
              <p className="muted" data-testid="picker-count">
                {describePage({
                  noun: ["run", "runs"],
                  total: page.total ?? null,
                  at: 1 + pages.depth * PICKER_PAGE,
                  shown: page.items.length,
                  filtered: Boolean(workload || agent),
                  order: "newest first",
                })}
              </p>
              <RunsTable runs={page.items} selected={selected} onToggle={toggle} />
              <CursorPager stack={pages} next={page.next_cursor} />
            </>
          )
        }
      </QueryView>
    </section>
  );
}

/** Start a group compare: a workload and the dimension whose values are the groups. */
export function GroupStart({ workload: initial }: { workload: string }) {
  const [, setParams] = useSearchParams();
  const [workload, setWorkload] = useState(initial);
  const [by, setBy] = useState("fs_version");
  const catalog = useCatalog(workload).data;
  const [workloads, workloadList] = useChoiceList(choicesOf(catalog?.workloads ?? []), "group-start-workload-choices");
  const [dims, dimList] = useChoiceList(
    (catalog?.dimensions ?? []).filter((d) => d.kind !== "time").map((d) => ({ value: d.name, label: d.kind })),
    "group-start-by-choices",
  );
  return (
    <section className="card">
      <h2>Compare groups</h2>
      <p className="muted">
        Every metric of a workload across values of a label, parameter or built-in dimension (filesystem version 6.1 against 6.5 and 6.8, ext4 against xfs): the
        runs are paired series by series, so agents, targets and parameters are never pooled.
      </p>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          if (workload && by) setParams(groupCompareSearch({ workload, by, values: [], filter: [], metric: [], pairIgnore: null, minEffect: null }));
        }}
      >
        <label className="field inline">
          <span>workload</span>
          <input value={workload} onChange={(e) => setWorkload(e.target.value.trim())} placeholder="smallfile" list={workloads} />
          {workloadList}
        </label>
        <label className="field inline">
          <span>grouped by</span>
          <input value={by} onChange={(e) => setBy(e.target.value.trim())} placeholder="fs_version" list={dims} />
          {dimList}
        </label>
        <button type="submit" className="button" disabled={!workload || !by}>
          Choose the groups
        </button>
      </form>
    </section>
  );
}
