// A 422's fields (body.spec.targets[0], body.when) mapped to the form's inputs, to show each
// error next to the input it is about.

export type FormField = "name" | "workload" | "targets" | "params" | "repetitions" | "labels" | "min_seconds" | "agents" | "when" | "timezone" | "other";

const SPEC_FIELDS: Record<string, FormField> = {
  workload: "workload",
  targets: "targets",
  params: "params",
  repetitions: "repetitions",
  labels: "labels",
  min_seconds: "min_seconds",
  warmup: "other",
};
const TOP_FIELDS: Record<string, FormField> = { name: "name", agents: "agents", when: "when", timezone: "timezone" };

/** The form input an API field path is about ("other" when none: shown above the buttons). */
export function formField(path: string): FormField {
  const parts = path.replace(/^body\.?/, "").split(/[.[]/);
  const head = parts[0] ?? "";
  if (head === "spec") {
    // the spec as a whole: its sweep is too large, which its parameters decide
    if (parts.length === 1) return "params";
    return SPEC_FIELDS[parts[1] ?? ""] ?? "other";
  }
  return TOP_FIELDS[head] ?? "other";
}

export type FieldErrors = Partial<Record<FormField, string[]>>;

export function groupFieldErrors(errors: readonly { field: string; message: string }[]): FieldErrors {
  const out: FieldErrors = {};
  for (const e of errors) {
    const key = formField(e.field);
    const where = e.field.replace(/^body\./, "");
    (out[key] ??= []).push(key === "other" ? `${where}: ${e.message}` : e.message);
  }
  return out;
}
