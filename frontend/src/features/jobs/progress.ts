// A job's status and progress as the agent reported it (POST /jobs/{id}/progress): the API gives
// `progress` as free JSON, so each field is read with a check.
import type { Schemas } from "../../api/client";

export type Job = Schemas["JobRead"];
export type JobStatus = NonNullable<Schemas["JobStatus"]>;

export const JOB_STATUSES: readonly JobStatus[] = ["queued", "leased", "running", "succeeded", "failed", "cancelled", "expired"];
const ACTIVE: readonly string[] = ["queued", "leased", "running"];

/** Queued, leased or running: the job may still change (its page polls). */
export function isActive(status: string): boolean {
  return ACTIVE.includes(status);
}

export type Progress = {
  percent: number | null;
  phase: string | null;
  point: Record<string, string | number | boolean> | null;
  done: number | null;
  total: number | null;
};

function finite(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

export function readProgress(progress: Record<string, unknown> | null | undefined): Progress {
  const p = progress ?? {};
  const point = p.point && typeof p.point === "object" && !Array.isArray(p.point) ? (p.point as Record<string, unknown>) : null;
  const pointOut: Record<string, string | number | boolean> = {};
  if (point) for (const [k, v] of Object.entries(point)) if (["string", "number", "boolean"].includes(typeof v)) pointOut[k] = v as string | number | boolean;
  const percent = finite(p.percent);
  return {
    percent: percent === null ? null : Math.min(100, Math.max(0, percent)),
    phase: typeof p.phase === "string" && p.phase ? p.phase : null,
    point: point ? pointOut : null,
    done: finite(p.done),
    total: finite(p.total),
  };
}

/** The bar's fill: what the agent said, else done/total; a succeeded job is full. */
export function barPercent(status: string, p: Progress): number | null {
  if (status === "succeeded") return 100;
  if (p.percent !== null) return p.percent;
  if (p.done !== null && p.total) return Math.min(100, (100 * p.done) / p.total);
  return null;
}

/** "measure · size=64k threads=2 · run 3/8": what the agent is doing now. */
export function progressText(p: Progress): string {
  const parts: string[] = [];
  if (p.phase) parts.push(p.phase);
  if (p.point && Object.keys(p.point).length > 0) {
    // the server stores JSON without its key order: target first, then the names alphabetically
    const keys = Object.keys(p.point).sort((a, b) => (a === "target" ? -1 : b === "target" ? 1 : a.localeCompare(b)));
    parts.push(keys.map((k) => `${k}=${String(p.point?.[k])}`).join(" "));
  }
  if (p.done !== null && p.total !== null) parts.push(`run ${p.done}/${p.total}`);
  return parts.join(" · ");
}

/** One line under the bar: what the job waits for, does now, or how it ended. */
export function progressLine(job: Pick<Job, "status" | "progress" | "points" | "runs" | "started_at" | "leased_by">): string {
  const p = readProgress(job.progress);
  const doing = progressText(p);
  const runs = `${job.runs.length} run${job.runs.length === 1 ? "" : "s"} stored`;
  switch (job.status) {
    case "queued":
      return `waiting for an agent · ${job.points} run${job.points === 1 ? "" : "s"} to make`;
    case "leased":
      return `claimed by ${job.leased_by ?? "an agent"}, starting`;
    case "running":
      return doing || "running";
    case "succeeded":
      return `finished · ${runs}`;
    case "expired":
      return "expired: no agent took it in time";
    default: // failed, cancelled
      if (!job.started_at) return `${job.status} before an agent started it`;
      return `${job.status}${doing ? ` during: ${doing}` : ""} · ${runs}`;
  }
}

/** The badge class of a status (colours in styles.css). */
export function statusClass(status: string): string {
  return `badge job-${status}`;
}
