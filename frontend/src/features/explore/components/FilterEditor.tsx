import { valueChoices } from "../../../components/ui/choices";
import { ValueFilterAdd } from "../../../components/ui/ValueFilterAdd";
import { humanTyped } from "../../../lib/units";
import type { Dimension } from "../catalog";
import { splitFilter } from "../url-state";

type Props = { filters: string[]; dimensions: Dimension[]; onChange: (filters: string[]) => void };

/** filter=dimension:value chips; several values of one dimension mean any of them. The
 * dimension and the value offer what is stored (the chosen dimension's values, sizes in their
 * units) and take any other text: env.KEY, label.NAME, 128k for 131072. */
export function FilterEditor({ filters, dimensions, onChange }: Props) {
  const add = (d: string, v: string) => {
    const f = `${d}:${v}`;
    if (!filters.includes(f)) onChange([...filters, f]);
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
              {d} = {humanTyped(d, v)}
              <button type="button" aria-label={`remove filter ${f}`} onClick={() => onChange(filters.filter((x) => x !== f))}>
                ×
              </button>
            </span>
          );
        })}
      </div>
      <ValueFilterAdd
        dimensions={dimensions.filter((d) => d.kind !== "time").map((d) => ({ value: d.name, label: d.kind }))}
        valuesOf={(dim) => valueChoices(dim, dimensions.find((d) => d.name === dim)?.values ?? [])}
        onAdd={add}
      />
    </fieldset>
  );
}
