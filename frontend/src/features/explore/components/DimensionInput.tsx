import { useId } from "react";
import { humanValue } from "../../../lib/units";
import type { Dimension } from "../catalog";

type Props = {
  label: string;
  value: string;
  dimensions: Dimension[];
  onChange: (value: string) => void;
  allowEmpty?: string;
  testId?: string;
};

/** A dimension picker: the known ones as options, and any other (env.KEY, label.NAME) typed in. */
export function DimensionInput({ label, value, dimensions, onChange, allowEmpty, testId }: Props) {
  const listId = useId();
  const known = dimensions.some((d) => d.name === value);
  return (
    <label className="field">
      <span>{label}</span>
      <select value={known || value === "" ? value : "__other"} data-testid={testId} onChange={(e) => e.target.value !== "__other" && onChange(e.target.value)}>
        {allowEmpty !== undefined && <option value="">{allowEmpty}</option>}
        {(["time", "parameter", "label", "built-in"] as const).map((kind) => {
          const items = dimensions.filter((d) => d.kind === kind);
          if (items.length === 0) return null;
          return (
            <optgroup key={kind} label={kind === "time" ? "time" : `${kind}s`}>
              {items.map((d) => (
                <option key={d.name} value={d.name}>
                  {d.name}
                  {d.values.length > 0 && kind !== "time"
                    ? ` (${d.values.length > 8 ? `${d.values.length} values` : d.values.map((v) => humanValue(d.name, v)).join(", ")})`
                    : ""}
                </option>
              ))}
            </optgroup>
          );
        })}
        {!known && value !== "" && <option value="__other">{value}</option>}
      </select>
      <input
        className="other"
        list={listId}
        placeholder="or type: env.KEY, label.NAME…"
        aria-label={`${label}: other dimension`}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            const v = e.currentTarget.value.trim();
            if (v) onChange(v);
            e.currentTarget.value = "";
          }
        }}
      />
      <datalist id={listId}>
        {dimensions.map((d) => (
          <option key={d.name} value={d.name} />
        ))}
      </datalist>
    </label>
  );
}
