import { useSearchParams } from "react-router-dom";
import { Channels } from "../../features/settings/components/Channels";
import { Rules } from "../../features/settings/components/Rules";

const TABS = [
  { id: "notifications", label: "Notifications" },
  { id: "rules", label: "Alert rules" },
] as const;

export function Settings() {
  const [params, setParams] = useSearchParams();
  const tab = params.get("tab") === "rules" ? "rules" : "notifications";
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Settings</h1>
          <p className="muted">Where alerts are sent, and when they open. Changing them needs an admin token.</p>
        </div>
      </div>
      <div className="tabs" role="tablist" aria-label="Settings">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            className={tab === t.id ? "tab active" : "tab"}
            onClick={() => setParams(t.id === "notifications" ? {} : { tab: t.id })}
          >
            {t.label}
          </button>
        ))}
      </div>
      {tab === "notifications" ? <Channels /> : <Rules />}
    </div>
  );
}
