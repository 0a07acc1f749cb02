// What other parts may use of reports: the "Add to report" button and the blocks it adds.
export { AddToReport } from "./components/AddToReport";
export { compareGroupsBlock, compareRunsBlock, exploreBlock, heatmapBlock } from "./blocks";
export { useReports } from "./api/get-reports";
