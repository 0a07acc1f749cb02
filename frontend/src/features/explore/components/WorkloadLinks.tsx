import { Link } from "react-router-dom";
import { exploreLink } from "../url-state";

/** A link to Explore for each workload, with that workload chosen. */
export function WorkloadLinks({ workloads }: { workloads: string[] }) {
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
