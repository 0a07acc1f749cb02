import { useQuery } from "@tanstack/react-query";
import { apiGet } from "../../../api/client";
import { buildCatalog, type ApiCatalog } from "../catalog";
import { pickersOf } from "../pickers";
import { catalogKeys } from "../../../api/query-keys";

export function getCatalog(signal?: AbortSignal): Promise<ApiCatalog> {
  return apiGet("/catalog", { signal });
}

/** `enabled` lets a page ask for its plot first: the catalog only fills the pickers. */
export function useCatalog(workload: string, enabled = true) {
  return useQuery({
    queryKey: catalogKeys.all,
    queryFn: ({ signal }) => getCatalog(signal),
    staleTime: 60_000,
    enabled,
    select: (api) => buildCatalog(api, workload),
  });
}

/** What the pickers offer: the catalog's workloads, and the metrics, parameters and labels with
 * their values of `workload` (of every workload when it is ""). */
export function usePickers(workload: string) {
  return useQuery({
    queryKey: catalogKeys.all,
    queryFn: ({ signal }) => getCatalog(signal),
    staleTime: 60_000,
    select: (api) => pickersOf(api, workload),
  });
}
