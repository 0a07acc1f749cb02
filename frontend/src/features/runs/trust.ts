// The trust flags of a run's results in a few words, and which flags one metric carries.
import type { Run } from "./api/get-run";

export const FLAG_TEXT: Record<string, string> = {
  short_phase: "short phase",
  busy: "busy machine",
  few_repetitions: "few repetitions",
  reference: "reference figures",
  tentative_alert: "tentative alert",
};

export function resultFlags(run: Run, metric: string): string[] {
  return run.trust.filter((t) => t.metrics.includes(metric)).map((t) => t.flag);
}
