import { Link } from "react-router-dom";
import { plural } from "../../../lib/format";
import { humanValue } from "../../../lib/units";
import type { Explore } from "../api/get-explore";
import { shortName } from "../figures";
import { exploreSearch, type ExploreState } from "../url-state";
import { paths } from "../../../lib/paths";

const NONE = "none";

/** Every value a pooled dimension takes behind the plot's points, in the answer's order. */
function mixedValues(data: Explore, name: string): string[] {
  const seen = new Set<string>();
  for (const t of data.traces) for (const v of t.mixes?.[name] ?? []) seen.add(v === null ? "not set" : humanValue(name, v));
  return [...seen];
}

function href(state: ExploreState, patch: Partial<ExploreState>): string {
  return paths.explore(exploreSearch({ ...state, ...patch }));
}

/** What the plot split its lines by and what its points still pool, each with the one click
 * that undoes it: split a mix, pool a split (the URL keeps the choice). */
export function MixNote({ data, state }: { data: Explore; state: ExploreState }) {
  const split = state.split ?? [];
  const pool = state.pool ?? [];
  const pooledOnPurpose = split.includes(NONE);
  const splitBy = data.split_by ?? [];
  const pooled = data.pooled ?? [];
  if (splitBy.length === 0 && pooled.length === 0 && !pooledOnPurpose) return null;
  const auto = splitBy.filter((n) => !split.includes(n));
  return (
    <div className="mix-note small" data-testid="explore-mixes">
      {splitBy.length > 0 && (
        <p>
          <strong>Split by {splitBy.map(shortName).join(", ")}</strong>: each line holds runs alike in {splitBy.length === 1 ? "it" : "them"}
          {auto.length > 0 && " (they would otherwise be pooled into one point)"}.{" "}
          {auto.map((name) => (
            <Link key={name} className="button small" to={href(state, { pool: [...pool, name] })}>
              pool {shortName(name)}
            </Link>
          ))}{" "}
          {!pooledOnPurpose && auto.length > 1 && (
            <Link className="button small" to={href(state, { split: [...split, NONE] })}>
              pool all
            </Link>
          )}
        </p>
      )}
      {pooled.length > 0 && (
        <ul>
          {pooled.map((name) => (
            <li key={name}>
              <span className="badge warn">
                mixes {shortName(name)}: {mixedValues(data, name).join(", ")}
              </span>{" "}
              <Link className="button small" to={href(state, { split: [...split.filter((s) => s !== name), name], pool: pool.filter((p) => p !== name) })}>
                split by {shortName(name)}
              </Link>
            </li>
          ))}
        </ul>
      )}
      {pooledOnPurpose && (
        <p>
          Pooled on purpose (split=none).{" "}
          <Link className="button small" to={href(state, { split: split.filter((s) => s !== NONE), pool: [] })}>
            split by default again
          </Link>
        </p>
      )}
    </div>
  );
}

/** Memory-backed or no-flush points, drawn as diamonds: how many and why they are not like the rest. */
export function DurabilityLegend({ data }: { data: Explore }) {
  let memory = 0;
  let noFlush = 0;
  for (const t of data.traces)
    for (const p of t.points) {
      const notes = p.durability ?? [];
      if (notes.includes("memory_backed")) memory += 1;
      else if (notes.includes("no_flush")) noFlush += 1;
    }
  if (memory + noFlush === 0) return null;
  return (
    <div className="flag-legend small" data-testid="explore-durability">
      <strong>◆ Diamonds are not durable like the rest</strong>:
      <ul>
        {memory > 0 && <li>{plural(memory, "point")}: tmpfs: memory-backed, fsync does not reach stable storage</li>}
        {noFlush > 0 && (
          <li>
            {plural(noFlush, "point")}: {data.durability_reasons?.no_flush ?? "the device does not flush"}
          </li>
        )}
      </ul>
    </div>
  );
}
