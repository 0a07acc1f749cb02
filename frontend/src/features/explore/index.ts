// What other features may use of explore; the rest of features/explore is its own.
export { useCatalog, usePickers } from "./api/get-catalog";
export type { Pickers, Stored } from "./pickers";
export type { Explore } from "./api/get-explore";
export type { Dimension } from "./catalog";
export { DimensionInput } from "./components/DimensionInput";
export { ExploreSummary, FlagLegend } from "./components/ExploreSummary";
export { ExploreTable } from "./components/ExploreTable";
export { FilterEditor } from "./components/FilterEditor";
export { DurabilityLegend, MixNote } from "./components/MixNote";
export { exploreFigure, shortName } from "./figures";
export { heatmapOf } from "./heatmap-figure";
export { exploreLink, heatmapSearch, parseExploreState, parseHeatmapState, type ExploreState, type ExploreView, type HeatmapState } from "./url-state";
