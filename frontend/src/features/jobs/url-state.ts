// The jobs list's filters live in the URL, in the API's names: /jobs?status=running&agent=lab-1&schedule=3
import type { JobsQuery } from "./api/get-jobs";
import type { JobStatus } from "./progress";
import { JOB_STATUSES } from "./progress";

export type JobsState = { status: JobStatus | ""; agent: string; schedule: string; cursor: string };

export function parseJobsState(params: URLSearchParams): JobsState {
  const status = params.get("status") ?? "";
  const schedule = params.get("schedule") ?? "";
  return {
    status: (JOB_STATUSES as readonly string[]).includes(status) ? (status as JobStatus) : "",
    agent: (params.get("agent") ?? "").trim(),
    schedule: /^\d+$/.test(schedule) ? schedule : "",
    cursor: params.get("cursor") ?? "",
  };
}

export function jobsSearch(state: JobsState): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of ["status", "agent", "schedule", "cursor"] as const) if (state[key]) params.set(key, state[key]);
  return params;
}

/** The API query of the list. */
export function jobsQuery(state: JobsState): JobsQuery {
  const query: JobsQuery = { limit: 50 };
  if (state.status) query.status = state.status;
  if (state.agent) query.agent = state.agent;
  if (state.schedule) query.schedule = Number(state.schedule);
  if (state.cursor) query.cursor = state.cursor;
  return query;
}
