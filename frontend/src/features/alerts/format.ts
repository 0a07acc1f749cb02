// Pure helpers the alert views share: the URL state of the alerts list, and how a change, its
// cause and its series read in a sentence.
import { formatNumber, formatPercent, formatValue } from "../../lib/format";
import type { Alert, AlertsFilter, AlertStatus } from "./api/get-alerts";
import type { Change } from "./api/get-alert";

export const STATUSES: readonly AlertStatus[] = ["open", "confirming", "acknowledged", "expected", "resolved"];

export const STATUS_LABEL: Record<AlertStatus, string> = {
  open: "Open",
  acknowledged: "Acknowledged",
  expected: "Expected",
  resolved: "Resolved",
  confirming: "Confirming",
};

export type AlertsState = { status: AlertStatus; workload: string; agent: string; label: string[]; cursor: string };

export function parseAlertsState(params: URLSearchParams): AlertsState {
  const status = params.get("status") ?? "";
  return {
    status: (STATUSES as readonly string[]).includes(status) ? (status as AlertStatus) : "open",
    workload: params.get("workload") ?? "",
    agent: params.get("agent") ?? "",
    label: params.getAll("label").filter((l) => l.includes(":")),
    cursor: params.get("cursor") ?? "",
  };
}

/** The address of a state, in the API's names; the default tab (open) and empty values stay out. */
export function alertsSearch(state: AlertsState): string {
  const params = new URLSearchParams();
  if (state.status !== "open") params.set("status", state.status);
  if (state.workload) params.set("workload", state.workload);
  if (state.agent) params.set("agent", state.agent);
  for (const l of state.label) params.append("label", l);
  if (state.cursor) params.set("cursor", state.cursor);
  return params.toString();
}

/** What the alerts list asks the API for: one page of one tab, filtered. */
export function alertsFilter(state: AlertsState): AlertsFilter {
  return {
    status: [state.status],
    workload: state.workload || undefined,
    agent: state.agent || undefined,
    label: state.label,
    cursor: state.cursor || undefined,
    limit: 50,
  };
}

type SeriesLike = { workload: string; metric: string; agent: string };

export function seriesTitle(series: SeriesLike): string {
  return `${series.workload} · ${series.metric} · ${series.agent}`;
}

/** `labels.fs_version` reads as `fs_version`, `environment.kernel` as `kernel`. */
export function causeKey(key: string): string {
  return key.replace(/^(labels|environment|parameters|durability)\./, "");
}

export function changeText(change: Change): string {
  return `${formatValue(change.before)} → ${formatValue(change.after)}`;
}

/** One line for a cause: `fs_version 6.1 → 6.2, kernel 6.1.0 → 6.5.0`; empty when none is known. */
export function causeSummary(cause: Record<string, Change> | null | undefined, max = 2): string {
  if (!cause) return "";
  const parts = Object.entries(cause).map(([key, change]) => `${causeKey(key)} ${changeText(change)}`);
  if (parts.length > max) return `${parts.slice(0, max).join(", ")} (+${parts.length - max} more)`;
  return parts.join(", ");
}

/** Whether the differences table's row (a group and a key in it) is one the detector named. */
export function isLikelyCause(cause: Record<string, Change> | null | undefined, group: string, key: string): boolean {
  if (!cause) return false;
  return `${group}.${key}` in cause;
}

export type Tone = "worse" | "much-worse" | "better" | "much-better";

/** Red for a regression, green for an improvement; darker from 10 % on. */
export function changeTone(kind: Alert["kind"], changePct: number | null | undefined): Tone {
  const much = changePct !== null && changePct !== undefined && Math.abs(changePct) >= 10;
  if (kind === "regression") return much ? "much-worse" : "worse";
  return much ? "much-better" : "better";
}

export function levelText(before: number, after: number, unit: string): string {
  return `${formatNumber(before)} → ${formatNumber(after)} ${unit}`;
}

/** 0.95 reads `95 %`; near-certainty reads `> 99.9 %` rather than a rounded-up `100 %`. */
export function confidenceText(confidence: number): string {
  if (confidence >= 0.999) return "> 99.9 %";
  return `${Math.round(confidence * 1000) / 10} %`;
}

export function changeSummary(kind: Alert["kind"], changePct: number | null | undefined): string {
  return `${kind === "regression" ? "regression" : "improvement"} ${formatPercent(changePct)}`;
}
