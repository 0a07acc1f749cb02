// What other features may use of jobs; the rest of features/jobs is its own.
export { JobStatusBadge, toneOf } from "./components/JobStatus";
export { isActive } from "./progress";
