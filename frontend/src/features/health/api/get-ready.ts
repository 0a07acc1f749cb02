import { useQuery } from "@tanstack/react-query";
import { apiUrl, type Schemas } from "../../../api/client";
import { readyKeys } from "../../../api/query-keys";

const POLL_MS = 15_000;

/** /ready's body, whether it answered 200 or 503 (the 503 says what is down); null when the
 * server itself does not answer, which every other panel already says. */
export async function getReady(signal?: AbortSignal): Promise<Schemas["Ready"] | null> {
  let response: Response;
  try {
    response = await fetch(apiUrl("/ready"), { headers: { Accept: "application/json" }, signal });
  } catch (exc) {
    if (exc instanceof DOMException && exc.name === "AbortError") throw exc;
    return null;
  }
  if (response.status !== 200 && response.status !== 503) return null;
  try {
    return (await response.json()) as Schemas["Ready"];
  } catch {
    return null; // a proxy's page, not ours
  }
}

export function useReady() {
  return useQuery({
    queryKey: readyKeys.all,
    queryFn: ({ signal }) => getReady(signal),
    refetchInterval: POLL_MS,
  });
}
