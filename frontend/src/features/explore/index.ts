// What other features may use of explore; the rest of features/explore is its own.
export { useCatalog } from "./api/get-catalog";
export type { Dimension } from "./catalog";
export { DimensionInput } from "./components/DimensionInput";
export { FilterEditor } from "./components/FilterEditor";
export { exploreLink } from "./url-state";
