import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiGet } from "../../../api/client";
import { groupCompareQuery, type GroupCompare, type GroupCompareState } from "../group";
import { compareKeys } from "../../../api/query-keys";

export function getGroupCompare(state: GroupCompareState, signal?: AbortSignal): Promise<GroupCompare> {
  return apiGet("/compare/groups", { query: groupCompareQuery(state), signal });
}

/** The server pairs the series and judges each change; asked once two values are chosen. */
export function useGroupCompare(state: GroupCompareState) {
  return useQuery({
    queryKey: compareKeys.groups(state),
    queryFn: ({ signal }) => getGroupCompare(state, signal),
    enabled: state.values.length >= 2,
    placeholderData: keepPreviousData,
  });
}
