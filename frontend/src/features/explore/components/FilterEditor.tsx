import { useId, useState } from "react";
import { humanValue, unitOf } from "../../../lib/units";
import type { Dimension } from "../catalog";
import { splitFilter } from "../url-state";

type Props = { filters: string[]; dimensions: Dimension[]; onChange: (filters: string[]) => void };

/** filter=dimension:value chips; several values of one dimension mean any of them. */
export function FilterEditor({ filters, dimensions, onChange }: Props) {
  const [dim, setDim] = useState("");
  const [value, setValue] = useState("");
  const listId = useId();
  const values = dimensions.find((d) => d.name === dim)?.values ?? [];
  const add = () => {
    if (!dim || value === "") return;
    const f = `${dim}:${value}`;
    if (!filters.includes(f)) onChange([...filters, f]);
    setValue("");
  };
  return (
    <fieldset className="field filters">
      <legend>filters</legend>
      <div className="chips" data-testid="filters">
        {filters.length === 0 && <span className="muted small">none: every run of the workload</span>}
        {filters.map((f) => {
          const [d, v] = splitFilter(f);
          return (
            <span key={f} className="chip">
              {d} = {humanValue(d, v)}
              <button type="button" aria-label={`remove filter ${f}`} onClick={() => onChange(filters.filter((x) => x !== f))}>
                ×
              </button>
            </span>
          );
        })}
      </div>
      <div className="filter-add">
        <select aria-label="filter dimension" value={dim} onChange={(e) => setDim(e.target.value)}>
          <option value="">dimension…</option>
          {dimensions
            .filter((d) => d.kind !== "time")
            .map((d) => (
              <option key={d.name} value={d.name}>
                {d.name}
              </option>
            ))}
        </select>
        <input
          aria-label="filter value"
          list={listId}
          placeholder="value"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              add();
            }
          }}
        />
        <datalist id={listId}>
          {values.map((v) => (
            <option key={v} value={v} label={unitOf(dim) ? humanValue(dim, v) : undefined} />
          ))}
        </datalist>
        <button type="button" className="button small" onClick={add} disabled={!dim || value === ""}>
          Add
        </button>
      </div>
    </fieldset>
  );
}
