// The TanStack Query keys of every request, one factory per feature: a key names its resource
// first ("alerts"), then the kind of request ("list", "detail") and its parameters, so that
// `x.all` matches every query of a feature and a write invalidates what it changes by its
// factory (`alertKeys.all`), never by a hand-typed string. Several features read the same
// resource (the first run's card and the Agents page both ask for the agents), so the factories
// live here, beside the client, rather than in each feature.
import type { ApiQuery } from "./client";

export const agentKeys = {
  all: ["agents"] as const,
  list: () => [...agentKeys.all, "list"] as const,
};

export const alertKeys = {
  all: ["alerts"] as const,
  list: (filter: ApiQuery<"/alerts">) => [...alertKeys.all, "list", filter] as const,
  detail: (id: number) => [...alertKeys.all, "detail", id] as const,
};

export const incidentKeys = {
  all: ["incidents"] as const,
  list: (filter: ApiQuery<"/incidents">) => [...incidentKeys.all, "list", filter] as const,
  detail: (id: number) => [...incidentKeys.all, "detail", id] as const,
};

export const catalogKeys = {
  all: ["catalog"] as const,
};

export const exploreKeys = {
  all: ["explore"] as const,
  plot: (query: ApiQuery<"/explore">) => [...exploreKeys.all, query] as const,
};

export const compareKeys = {
  all: ["compare"] as const,
  /** runs side by side; `query` is the page's state (runs, metric, minEffect) */
  runs: (query: object) => [...compareKeys.all, "runs", query] as const,
  /** groups of runs; `state` is the page's state */
  groups: (state: object) => [...compareKeys.all, "groups", state] as const,
};

export const jobKeys = {
  all: ["jobs"] as const,
  list: (query: ApiQuery<"/jobs">) => [...jobKeys.all, "list", query] as const,
  detail: (id: number) => [...jobKeys.all, "detail", id] as const,
};

export const reportKeys = {
  all: ["reports"] as const,
  list: () => [...reportKeys.all, "list"] as const,
  detail: (slug: string) => [...reportKeys.all, "detail", slug] as const,
  data: (slug: string) => [...reportKeys.all, "data", slug] as const,
};

export const runKeys = {
  all: ["runs"] as const,
  list: (filter: ApiQuery<"/runs">) => [...runKeys.all, "list", filter] as const,
  detail: (uuid: string) => [...runKeys.all, "detail", uuid] as const,
};

export const scheduleKeys = {
  all: ["schedules"] as const,
  list: () => [...scheduleKeys.all, "list"] as const,
  detail: (id: number) => [...scheduleKeys.all, "detail", id] as const,
  firings: (id: number, cursor: string) => [...scheduleKeys.all, "firings", id, cursor] as const,
  /** What a schedule being edited would do: outside `all`, so that saving one does not ask again. */
  preview: (body: object | null) => ["schedule-preview", body] as const,
};

export const seriesKeys = {
  all: ["series"] as const,
  list: (filter: ApiQuery<"/series">) => [...seriesKeys.all, "list", filter] as const,
  /** One window of a series' points: the newest `limit`, or the newest before `until`. */
  points: (id: number, samples: boolean, until: string | null, limit: number) => [...seriesKeys.all, "points", id, { samples, until, limit }] as const,
  /** Every series' change points: what a triage changes (an alert's status marks its point). */
  allChangePoints: () => [...seriesKeys.all, "change-points"] as const,
  changePoints: (id: number, points: number, until: string | null) => [...seriesKeys.allChangePoints(), id, { points, until }] as const,
};

export const channelKeys = {
  all: ["channels"] as const,
  list: () => [...channelKeys.all, "list"] as const,
};

export const notificationKeys = {
  all: ["notifications"] as const,
  list: (limit: number) => [...notificationKeys.all, "list", limit] as const,
};

export const ruleKeys = {
  all: ["alert-rules"] as const,
  list: () => [...ruleKeys.all, "list"] as const,
};

export const readyKeys = {
  all: ["ready"] as const,
};
