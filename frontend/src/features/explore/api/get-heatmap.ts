import { useQueries } from "@tanstack/react-query";
import { useMemo } from "react";
import { heatmapQueries, type HeatmapState } from "../url-state";
import { exploreQueryOptions } from "./get-explore";

/** The explore answers behind a heatmap: one, or two (a and b) for a difference; none until it is set up. */
export function useHeatmap(state: HeatmapState) {
  const queries = useMemo(() => heatmapQueries(state), [state]);
  const results = useQueries({
    queries: queries.map((q) => exploreQueryOptions(q)),
    combine: (rs) => ({ data: rs.map((r) => r.data), error: rs.find((r) => r.isError)?.error }),
  });
  return { asked: queries.length, diff: queries.length === 2, ...results };
}
