// Pure helpers of the alert rules form: a form's fields to a rule body, and a rule in words.
import type { Rule, RuleCreate } from "./api/rules";

function text(form: FormData, key: string): string | null {
  const value = String(form.get(key) ?? "").trim();
  return value === "" ? null : value;
}

function number(form: FormData, key: string): number | null {
  const value = text(form, key);
  if (value === null) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** The body to send; empty fields are null (match everything / use the default). Confidence is
 * typed in percent in the form and sent as a fraction. */
export function ruleFromForm(form: FormData): RuleCreate {
  const confidence = number(form, "min_confidence");
  return {
    name: text(form, "name") ?? "",
    workload: text(form, "workload"),
    metric: text(form, "metric"),
    agent: text(form, "agent"),
    label_key: text(form, "label_key"),
    label_value: text(form, "label_value"),
    series_id: number(form, "series_id"),
    min_change_pct: number(form, "min_change_pct"),
    min_confidence: confidence === null ? null : confidence / 100,
    mute: form.get("mute") === "on",
    note: text(form, "note"),
  };
}

/** What a rule matches, in words: `workload=smallfile agent=lab-1`, or `every series`. */
export function ruleScope(rule: Pick<Rule, "workload" | "metric" | "agent" | "label_key" | "label_value" | "series_id">): string {
  const parts: string[] = [];
  if (rule.workload) parts.push(`workload=${rule.workload}`);
  if (rule.metric) parts.push(`metric=${rule.metric}`);
  if (rule.agent) parts.push(`agent=${rule.agent}`);
  if (rule.label_key) parts.push(rule.label_value != null ? `label ${rule.label_key}=${rule.label_value}` : `has label ${rule.label_key}`);
  if (rule.series_id != null) parts.push(`series #${rule.series_id}`);
  return parts.length === 0 ? "every series" : parts.join(" ");
}
