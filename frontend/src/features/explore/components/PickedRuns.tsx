import { Link } from "react-router-dom";
import { plural, shortId } from "../../../lib/format";
import type { Picked } from "../picked";
import { paths } from "../../../lib/paths";

/** The runs behind a clicked point: links to each, and to compare them. */
export function PickedRuns({ picked, x, onClose }: { picked: Picked; x: string; onClose: () => void }) {
  return (
    <div className="picked card" data-testid="picked">
      <div className="card-head">
        <strong>
          {picked.group}, {x} = {String(picked.x)}: {plural(picked.n, "run")}
          {picked.runs.length < picked.n ? ` (newest ${picked.runs.length})` : ""}
        </strong>
        <button type="button" className="button small" onClick={onClose}>
          Close
        </button>
      </div>
      <p>
        {picked.runs.map((r) => (
          <Link key={r} className="chip mono" to={paths.run(r)}>
            {shortId(r)}
          </Link>
        ))}
      </p>
      {picked.runs.length >= 2 && (
        <Link className="button small" to={paths.compare({ runs: picked.runs.slice(0, 6).join(",") })}>
          Compare these runs
        </Link>
      )}
    </div>
  );
}
