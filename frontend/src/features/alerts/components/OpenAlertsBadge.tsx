import { OPEN_ALERTS, useAlerts } from "../api/get-alerts";

/** The open alerts' count beside "Alerts" in the nav (one small request, shared with the Overview's panel). */
export function OpenAlertsBadge() {
  const alerts = useAlerts(OPEN_ALERTS);
  const open = alerts.data?.counts.open ?? 0;
  if (open === 0) return null;
  return (
    <span className="nav-badge" data-testid="open-alerts-badge" aria-label={`${open} open`}>
      {open}
    </span>
  );
}
