import { Link } from "react-router-dom";
import { useCatalog } from "../api/get-catalog";
import { exploreLink } from "../url-state";

/** A link to Explore for each workload stored (the catalog's, which Explore asks for next), with
 * that workload chosen. */
export function WorkloadLinks() {
  const catalog = useCatalog("");
  const workloads = catalog.data?.workloads ?? [];
  if (workloads.length === 0) return null;
  return (
    <p className="quick">
      Plot a workload:{" "}
      {workloads.map((w) => (
        <Link key={w} className="chip" to={exploreLink({ workload: w })}>
          {w}
        </Link>
      ))}
    </p>
  );
}
