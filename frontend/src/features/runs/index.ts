// What other features may use of runs; the rest of features/runs is its own.
export { useRuns, type RunSummary } from "./api/get-runs";
export { DurabilityBadges } from "./components/DurabilityBadges";
export { RunsTable } from "./components/RunsTable";
export { seriesExploreLink } from "./links";
