import { useSearchParams } from "react-router-dom";
import { Link } from "react-router-dom";
import { useState } from "react";
import { Empty, ErrorState, Loading } from "../../../components/ui/States";
import { useChoiceList } from "../../../components/ui/ChoiceList";
import { WriteError } from "../../../components/ui/WriteError";
import { useAgentChoices } from "../../agents";
import { usePickers } from "../../explore";
import { useDeleteRule, useRules, useSaveRule, type Rule } from "../api/rules";
import { ruleFromForm, ruleScope } from "../rules";
import { paths } from "../../../lib/paths";

function pct(value: number | null | undefined, fallback: number | undefined): string {
  if (value !== null && value !== undefined) return `${value} %`;
  return fallback === undefined ? "default" : `${fallback} % (default)`;
}

function conf(value: number | null | undefined, fallback: number | undefined): string {
  const show = (v: number) => `${Math.round(v * 1000) / 10} %`;
  if (value !== null && value !== undefined) return show(value);
  return fallback === undefined ? "default" : `${show(fallback)} (default)`;
}

function RuleForm({ rule, onDone }: { rule: Rule | null; onDone: () => void }) {
  const save = useSaveRule();
  // What each matcher offers: the stored workloads, the chosen workload's metrics and labels,
  // the chosen label's values, the agents; any other text may be typed.
  const [workload, setWorkload] = useState(rule?.workload ?? "");
  const [labelKey, setLabelKey] = useState(rule?.label_key ?? "");
  const pickers = usePickers(workload.trim()).data;
  const [workloads, workloadList] = useChoiceList(pickers?.workloads ?? [], "rule-workload-choices");
  const [metrics, metricList] = useChoiceList(pickers?.metrics ?? [], "rule-metric-choices");
  const everyAgent = useAgentChoices().data ?? [];
  const [agents, agentList] = useChoiceList((workload.trim() ? pickers?.agents : everyAgent) ?? [], "rule-agent-choices");
  const [labelKeys, labelKeyList] = useChoiceList(pickers?.labels ?? [], "rule-label-key-choices");
  const [labelValues, labelValueList] = useChoiceList(pickers?.values(labelKey.trim(), "label") ?? [], "rule-label-value-choices");
  return (
    <form
      className="inline-form"
      data-testid="rule-form"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ id: rule?.id ?? null, body: ruleFromForm(new FormData(e.currentTarget)) }, { onSuccess: onDone });
      }}
    >
      <h3>{rule ? `Edit rule “${rule.name}”` : "New rule"}</h3>
      <p className="muted small">Empty matchers match every series; where several rules match, the one with most matchers set wins.</p>
      <div className="form-row">
        <label className="field">
          <span>name</span>
          <input name="name" required maxLength={128} defaultValue={rule?.name ?? ""} placeholder="quiet nightly" />
        </label>
        <label className="field">
          <span>workload</span>
          <input name="workload" value={workload} onChange={(e) => setWorkload(e.target.value)} placeholder="any" list={workloads} />
          {workloadList}
        </label>
        <label className="field">
          <span>metric</span>
          <input name="metric" defaultValue={rule?.metric ?? ""} placeholder="any" list={metrics} />
          {metricList}
        </label>
        <label className="field">
          <span>host (agent)</span>
          <input name="agent" defaultValue={rule?.agent ?? ""} placeholder="any" list={agents} />
          {agentList}
        </label>
        <label className="field">
          <span>label name</span>
          <input name="label_key" value={labelKey} onChange={(e) => setLabelKey(e.target.value)} placeholder="any" list={labelKeys} />
          {labelKeyList}
        </label>
        <label className="field">
          <span>label value</span>
          <input name="label_value" defaultValue={rule?.label_value ?? ""} placeholder="any" list={labelValues} />
          {labelValueList}
        </label>
        <label className="field small-input">
          <span>series id</span>
          <input name="series_id" type="number" min={1} defaultValue={rule?.series_id ?? ""} placeholder="any" />
        </label>
      </div>
      <div className="form-row">
        <label className="field small-input">
          <span>min change %</span>
          <input name="min_change_pct" type="number" min={0} max={1000} step="any" defaultValue={rule?.min_change_pct ?? ""} placeholder="default" />
        </label>
        <label className="field small-input">
          <span>min confidence %</span>
          <input
            name="min_confidence"
            type="number"
            min={1}
            max={99.9}
            step="any"
            defaultValue={rule?.min_confidence != null ? Math.round(rule.min_confidence * 1000) / 10 : ""}
            placeholder="default"
          />
        </label>
        <label className="check">
          <input type="checkbox" name="mute" defaultChecked={rule?.mute ?? false} /> mute (no alerts for these series)
        </label>
        <label className="field grow">
          <span>note</span>
          <input name="note" maxLength={2000} defaultValue={rule?.note ?? ""} placeholder="why this rule exists" />
        </label>
      </div>
      <div className="actions">
        <button type="submit" className="button primary" disabled={save.isPending}>
          {rule ? "Save rule" : "Add rule"}
        </button>
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      <WriteError error={save.error} scope="admin" action="Saving a rule" />
    </form>
  );
}

function DeleteRule({ rule }: { rule: Rule }) {
  const remove = useDeleteRule();
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      {confirming ? (
        <button type="button" className="button small danger" onClick={() => remove.mutate(rule.id)} disabled={remove.isPending}>
          Really delete
        </button>
      ) : (
        <button type="button" className="button small" onClick={() => setConfirming(true)}>
          Delete…
        </button>
      )}
      <WriteError error={remove.error} scope="admin" action="Deleting a rule" />
    </>
  );
}

export function Rules() {
  const rules = useRules();
  const [params, setParams] = useSearchParams();
  const edit = params.get("edit") ?? "";
  const setEdit = (value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set("edit", value);
    else next.delete("edit");
    setParams(next, { replace: true });
  };
  if (rules.isError) return <ErrorState error={rules.error} what="alert rules" />;
  if (rules.isPending) return <Loading what="alert rules" />;
  const { items, defaults } = rules.data;
  const editing = edit === "new" ? null : (items.find((r) => String(r.id) === edit) ?? undefined);
  return (
    <section className="card">
      <div className="card-head">
        <h2>Alert rules</h2>
        {edit === "" && (
          <button type="button" className="button primary small" onClick={() => setEdit("new")}>
            New rule
          </button>
        )}
      </div>
      <p data-testid="rule-defaults">
        Without a rule, an alert opens for a change of at least <strong>{defaults.min_change_pct ?? "?"} %</strong> found with at least{" "}
        <strong>{conf(defaults.min_confidence, undefined)}</strong> confidence. Rules raise or lower these for the series they match, or mute them. Writing
        rules needs an admin token.
      </p>
      {items.length === 0 ? (
        <Empty title="No rules: the defaults apply to every series.">
          <p className="state-body">
            Add one to quiet a noisy host, or to mute a series you know moves (a <Link to={paths.seriesList()}>series</Link>' id is in its address).
          </p>
        </Empty>
      ) : (
        <table className="table" data-testid="rules-table">
          <thead>
            <tr>
              <th>name</th>
              <th>matches</th>
              <th>min change</th>
              <th>min confidence</th>
              <th>mute</th>
              <th>note</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.id} className={String(r.id) === edit ? "selected" : undefined}>
                <td className="strong">{r.name}</td>
                <td className="mono small">{ruleScope(r)}</td>
                <td>{r.mute ? "–" : pct(r.min_change_pct, defaults.min_change_pct)}</td>
                <td>{r.mute ? "–" : conf(r.min_confidence, defaults.min_confidence)}</td>
                <td>{r.mute ? <span className="badge warn">muted</span> : "no"}</td>
                <td className="small">{r.note}</td>
                <td className="nowrap">
                  <button type="button" className="button small" onClick={() => setEdit(String(r.id))}>
                    Edit
                  </button>{" "}
                  <DeleteRule rule={r} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {edit !== "" && editing !== undefined && <RuleForm key={edit} rule={editing} onDone={() => setEdit("")} />}
      {edit !== "" && edit !== "new" && editing === undefined && <p className="muted">There is no rule {edit} (deleted?).</p>}
    </section>
  );
}
