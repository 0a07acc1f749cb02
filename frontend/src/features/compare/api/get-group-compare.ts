import { useQueries } from "@tanstack/react-query";
import { exploreQueryOptions, type Explore } from "../../explore/api/get-explore";
import { DURABILITY_FACTS, groupQueries, type GroupCompareState } from "../group";

/** Every metric of the workload for the two groups, and the durability facts of each group. */
export function useGroupCompare(state: GroupCompareState | null, metrics: string[]) {
  const ready = state !== null && state.a !== "" && state.b !== "" && metrics.length > 0;
  const queries = ready ? groupQueries(state, metrics) : [];
  const facts = ready
    ? DURABILITY_FACTS.map((fact) => ({ workload: state.workload, metric: metrics[0]!, x: fact, group: state.by, filter: queries[0]!.filter }))
    : [];
  return useQueries({
    queries: [...queries, ...facts].map((q) => exploreQueryOptions(q)),
    combine: (results) => {
      const error = results.find((r) => r.isError)?.error;
      const pending = results.some((r) => r.isPending);
      const data = results.map((r) => r.data);
      const byFact: Record<string, Explore | undefined> = {};
      DURABILITY_FACTS.forEach((fact, i) => (byFact[fact] = data[queries.length + i]));
      return { ready, error, pending, metrics: data.slice(0, queries.length).filter((d): d is Explore => d !== undefined), byFact };
    },
  });
}
