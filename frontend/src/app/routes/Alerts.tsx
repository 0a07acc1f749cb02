import { Link, useSearchParams } from "react-router-dom";
import { useAlerts } from "../../features/alerts/api/get-alerts";
import { AlertsTable } from "../../features/alerts/components/AlertsTable";
import { alertsSearch, parseAlertsState, STATUS_LABEL, STATUSES, type AlertsState } from "../../features/alerts/format";
import { Empty, QueryView } from "../../components/ui/States";

export function NoAlertsHelp() {
  return (
    <div className="state-body">
      <p>
        Alerts open when the worker finds a lasting change (a step) in a series: it checks every series after each upload and every
        night. Run it beside the server:
      </p>
      <pre className="code">{`perfatlas worker            # detection after uploads, the nightly pass, notifications
perfatlas check             # or check every series once, now`}</pre>
      <p>
        A series needs about 10 runs before a change can be told from noise. Thresholds and mutes are in{" "}
        <Link to="/settings?tab=rules">Settings → Alert rules</Link>.
      </p>
    </div>
  );
}

export function Alerts() {
  const [params, setParams] = useSearchParams();
  const state = parseAlertsState(params);
  const alerts = useAlerts({
    status: [state.status],
    workload: state.workload || undefined,
    agent: state.agent || undefined,
    label: state.label,
    cursor: state.cursor || undefined,
    limit: 50,
  });
  const go = (next: Partial<AlertsState>) => setParams(alertsSearch({ ...state, cursor: "", ...next }));
  const filtered = Boolean(state.workload || state.agent || state.label.length > 0);
  const counts = alerts.data?.counts;

  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Alerts</h1>
          <p className="muted">Lasting changes the detector found in a series. Open one to see the change, its likely cause and to triage it.</p>
        </div>
        <div className="actions">
          <Link className="button" to="/incidents">
            Incidents
          </Link>
          <Link className="button" to="/settings?tab=rules">
            Alert rules
          </Link>
        </div>
      </div>
      <div className="tabs" role="tablist" aria-label="Alert status">
        {STATUSES.map((s) => (
          <button
            key={s}
            type="button"
            role="tab"
            aria-selected={state.status === s}
            className={state.status === s ? "tab active" : "tab"}
            data-testid={`tab-${s}`}
            onClick={() => go({ status: s })}
          >
            {STATUS_LABEL[s]} <span className="count">{counts ? (counts[s] ?? 0) : "…"}</span>
          </button>
        ))}
      </div>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const label = String(form.get("label") ?? "").trim();
          go({
            workload: String(form.get("workload") ?? "").trim(),
            agent: String(form.get("agent") ?? "").trim(),
            label: label && label.includes(":") && !state.label.includes(label) ? [...state.label, label] : state.label,
          });
          const input = e.currentTarget.elements.namedItem("label");
          if (input instanceof HTMLInputElement) input.value = "";
        }}
      >
        <label className="field inline">
          <span>workload</span>
          <input name="workload" key={`w-${state.workload}`} defaultValue={state.workload} />
        </label>
        <label className="field inline">
          <span>host</span>
          <input name="agent" key={`a-${state.agent}`} defaultValue={state.agent} placeholder="agent" />
        </label>
        <label className="field inline">
          <span>label</span>
          <input name="label" placeholder="name:value" pattern="[^:]+:.*" title="name:value, e.g. fs_version:6.2" />
        </label>
        <button type="submit" className="button small">
          Apply
        </button>
        {state.label.map((l) => (
          <span key={l} className="chip">
            label {l}
            <button type="button" aria-label={`remove label ${l}`} onClick={() => go({ label: state.label.filter((x) => x !== l) })}>
              ×
            </button>
          </span>
        ))}
        {filtered && (
          <button type="button" className="button small" onClick={() => go({ workload: "", agent: "", label: [] })}>
            Clear filters
          </button>
        )}
      </form>
      <section className="card">
        <QueryView query={alerts} what="alerts">
          {(page) =>
            page.items.length === 0 ? (
              Object.values(page.counts).every((n) => n === 0) ? (
                <Empty title={filtered ? "No alert matches these filters." : "No alerts yet."}>{!filtered && <NoAlertsHelp />}</Empty>
              ) : (
                <Empty title={`No ${STATUS_LABEL[state.status].toLowerCase()} alerts${filtered ? " match these filters" : ""}.`}>
                  <p className="state-body">
                    {state.status === "open" ? "Nothing needs triage. " : ""}The other tabs hold{" "}
                    {STATUSES.filter((s) => s !== state.status && (page.counts[s] ?? 0) > 0)
                      .map((s) => `${page.counts[s]} ${STATUS_LABEL[s].toLowerCase()}`)
                      .join(", ")}
                    .
                  </p>
                </Empty>
              )
            ) : (
              <>
                <AlertsTable alerts={page.items} />
                <div className="pager">
                  {state.cursor && (
                    <button type="button" className="button small" onClick={() => go({})}>
                      ← Newest
                    </button>
                  )}
                  {page.next_cursor && (
                    <button type="button" className="button small" onClick={() => go({ cursor: page.next_cursor ?? "" })}>
                      Older →
                    </button>
                  )}
                </div>
              </>
            )
          }
        </QueryView>
      </section>
    </div>
  );
}
