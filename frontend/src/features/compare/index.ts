// What other features may use of compare; the rest of features/compare is its own.
export type { Compare } from "./api/get-compare";
export { GroupResult, GroupTable } from "./components/GroupCompare";
export { changeText, parseRunsCompare, runsCompareSearch, VERDICT_TEXT } from "./diff";
export { RunCompare } from "./components/RunCompare";
export { groupCompareSearch, groupSummary, parseGroupCompare } from "./group";
export type { GroupCompare, GroupCompareState } from "./group";
export { unpairedGroups } from "./unpaired";
