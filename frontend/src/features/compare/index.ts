// What other features may use of compare; the rest of features/compare is its own.
export type { Compare } from "./api/get-compare";
export { GroupTable } from "./components/GroupCompare";
export { RunCompare } from "./components/RunCompare";
export type { GroupCompare, GroupCompareState } from "./group";
export { compareTableHtml, groupsTableHtml } from "./export-html";
