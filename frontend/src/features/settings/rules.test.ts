import { describe, expect, it } from "vitest";
import { ruleFromForm, ruleScope } from "./rules";

function form(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.set(k, v);
  return data;
}

describe("alert rule form", () => {
  it("sends empty fields as null and confidence as a fraction", () => {
    expect(
      ruleFromForm(form({ name: " quiet ", workload: "", agent: "lab-1", min_change_pct: "12.5", min_confidence: "99", series_id: "", mute: "on" })),
    ).toEqual({
      name: "quiet",
      workload: null,
      metric: null,
      agent: "lab-1",
      label_key: null,
      label_value: null,
      series_id: null,
      min_change_pct: 12.5,
      min_confidence: 0.99,
      mute: true,
      note: null,
    });
  });

  it("says what a rule matches", () => {
    expect(ruleScope({ workload: null, metric: null, agent: null, label_key: null, label_value: null, series_id: null })).toBe("every series");
    expect(ruleScope({ workload: "w", metric: null, agent: "a", label_key: "k", label_value: "v", series_id: 4 })).toBe(
      "workload=w agent=a label k=v series #4",
    );
  });
});
