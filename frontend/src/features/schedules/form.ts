// The schedule form's state and the API bodies it stands for (and back, to edit a schedule).
import type { ApiBody, Schemas } from "../../api/client";
import type { WhenKind } from "./cron";
import { whenKind } from "./cron";

export type WorkloadSpec = Schemas["WorkloadSpec"];
export type ScheduleCreate = Schemas["ScheduleCreate"];
export type ScheduleRead = Schemas["ScheduleRead"];
export type SchedulePreviewIn = Schemas["SchedulePreviewIn"];
export type Params = NonNullable<WorkloadSpec["params"]>;
export type ParamValue = Exclude<Params[string], unknown[]>;

export type ParamRow = { name: string; values: string };

export type ScheduleForm = {
  name: string;
  workload: string;
  targets: string[];
  params: ParamRow[];
  repetitions: string;
  labels: string;
  minSeconds: string;
  agents: string[];
  whenKind: WhenKind;
  /** a datetime-local value, 2026-12-01T06:00, read in `timezone` */
  onceAt: string;
  cron: string;
  timezone: string;
  paused: boolean;
};

export function emptyForm(timezone: string): ScheduleForm {
  return {
    name: "",
    workload: "",
    targets: [],
    params: [{ name: "", values: "" }],
    repetitions: "3",
    labels: "",
    minSeconds: "0.5",
    agents: [],
    whenKind: "cron",
    onceAt: "",
    cron: "0 3 * * *",
    timezone,
    paused: false,
  };
}

const INT = /^-?\d{1,15}$/;
const FLOAT = /^-?(\d+\.\d*|\.\d+|\d+)(e-?\d+)?$/i;

/** One typed value: whole and decimal numbers become numbers, the rest stays text (4k, auto). */
export function parseValue(text: string): ParamValue {
  const t = text.trim();
  if (INT.test(t)) return Number.parseInt(t, 10);
  if (FLOAT.test(t) && Number.isFinite(Number(t))) return Number(t);
  return t;
}

/** Parameters the agent takes as one value, never a list to sweep (its `sweepable=False` ones: a
 * command's shell line, an archive, a fio job file): their commas are part of the value. */
export const WHOLE_VALUE_PARAMS: ReadonlySet<string> = new Set(["cmd", "archive", "jobfile"]);

/** Comma-separated values, empty ones dropped; a whole-value parameter's text is one value. */
export function parseValues(text: string, name = ""): ParamValue[] {
  if (WHOLE_VALUE_PARAMS.has(name.trim())) return text.trim() === "" ? [] : [text.trim()];
  return text
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "")
    .map(parseValue);
}

/** Parameter rows as the spec's params: one value stays a value, several sweep (a list). */
export function paramsFromRows(rows: readonly ParamRow[]): Params {
  const params: Params = {};
  for (const row of rows) {
    const name = row.name.trim();
    if (!name) continue;
    const values = parseValues(row.values, name);
    if (values.length === 0) continue;
    params[name] = values.length === 1 ? (values[0] as ParamValue) : values;
  }
  return params;
}

export function rowsFromParams(params: Params | undefined): ParamRow[] {
  const rows = Object.entries(params ?? {}).map(([name, v]) => ({ name, values: (Array.isArray(v) ? v : [v]).map(String).join(", ") }));
  return rows.length > 0 ? rows : [{ name: "", values: "" }];
}

/** Runs one agent makes: targets × the product of the swept lists' lengths (WorkloadSpec.points()). */
export function sweepCount(targets: number, params: Params): number {
  let n = targets;
  for (const v of Object.values(params)) n *= Array.isArray(v) ? v.length : 1;
  return n;
}

/** `version=1.2, build=nightly` (commas or spaces between pairs) as labels; pairs without = are ignored. */
export function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of text.split(/[,\s]+/)) {
    const eq = pair.indexOf("=");
    if (eq <= 0) continue;
    labels[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return labels;
}

export function labelsText(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");
}

function number(text: string, fallback: number): number {
  const n = Number(text.trim());
  return text.trim() === "" || !Number.isFinite(n) ? fallback : n;
}

export function specFromForm(form: ScheduleForm): WorkloadSpec {
  return {
    workload: form.workload.trim(),
    targets: form.targets.map((t) => t.trim()).filter((t) => t !== ""),
    params: paramsFromRows(form.params),
    repetitions: number(form.repetitions, 3),
    labels: parseLabels(form.labels),
    min_seconds: number(form.minSeconds, 0.5),
    warmup: true,
  };
}

/** The API's `when`: "now", the local date-time as typed (read in `timezone`), or "cron:<fields>". */
export function whenFromForm(form: ScheduleForm): string {
  if (form.whenKind === "now") return "now";
  if (form.whenKind === "once") return form.onceAt.trim();
  return `cron:${form.cron.trim().split(/\s+/).join(" ")}`;
}

export function previewBody(form: ScheduleForm, spec: WorkloadSpec = specFromForm(form)): SchedulePreviewIn {
  return { spec, agents: form.agents, when: whenFromForm(form), timezone: form.timezone.trim() };
}

export function createBody(form: ScheduleForm): ScheduleCreate {
  return { name: form.name.trim(), ...previewBody(form), paused: form.paused };
}

export type ScheduleUpdate = ApiBody<"/schedules/{schedule_id}", "patch">;

/** The PATCH of an edit: only what changed, so that saving a renamed "now" schedule does not fire it again. */
export function updateBody(before: ScheduleForm, after: ScheduleForm): ScheduleUpdate {
  const a = createBody(before);
  const b = createBody(after);
  const out: ScheduleUpdate = {};
  if (a.name !== b.name) out.name = b.name;
  if (JSON.stringify(a.spec) !== JSON.stringify(b.spec)) out.spec = b.spec;
  if (JSON.stringify(a.agents) !== JSON.stringify(b.agents)) out.agents = b.agents;
  if (a.when !== b.when) out.when = b.when;
  if (a.timezone !== b.timezone) out.timezone = b.timezone;
  if (a.paused !== b.paused) out.paused = b.paused;
  return out;
}

export function formFromSchedule(s: ScheduleRead): ScheduleForm {
  const kind = whenKind(s.when);
  return {
    name: s.name,
    workload: s.spec.workload,
    targets: [...s.spec.targets],
    params: rowsFromParams(s.spec.params),
    repetitions: String(s.spec.repetitions),
    labels: labelsText(s.spec.labels),
    minSeconds: String(s.spec.min_seconds),
    agents: [...s.agents],
    whenKind: kind,
    // a once-schedule that has fired keeps its time; it is in the past now, which the API refuses
    onceAt: kind === "once" ? s.when.trim().slice(0, 16) : "",
    cron: kind === "cron" ? s.when.trim().slice("cron:".length).trim() : "0 3 * * *",
    timezone: s.timezone,
    paused: s.paused,
  };
}

/** What is missing before a preview is worth asking for (the server checks the rest). */
export function missing(form: ScheduleForm): string[] {
  const out: string[] = [];
  if (!form.workload.trim()) out.push("a workload");
  if (!form.targets.some((t) => t.trim())) out.push("a target");
  if (form.agents.length === 0) out.push("an agent selector");
  if (form.whenKind === "once" && !form.onceAt.trim()) out.push("a date and time");
  if (form.whenKind === "cron" && !form.cron.trim()) out.push("a cron");
  return out;
}
