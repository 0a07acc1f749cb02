// What other features may use of schedules; the rest of features/schedules is its own.
export { describeWhen } from "./cron";
export { describeSelector } from "./selector";
