import { useState, type KeyboardEvent } from "react";
import type { Choice } from "./choices";
import { useChoiceList } from "./ChoiceList";

type Props = {
  /** the dimensions offered (any other may be typed: env.KEY, label.NAME) */
  dimensions: readonly Choice[];
  /** the stored values offered once a dimension is chosen */
  valuesOf: (dimension: string) => readonly Choice[];
  onAdd: (dimension: string, value: string) => void;
  testId?: string;
  placeholder?: string;
};

/** A dimension and one of its values, each offering what is stored and taking any text; Enter in
 * either field or Add adds the pair. */
export function ValueFilterAdd({ dimensions, valuesOf, onAdd, testId = "filters", placeholder = "dimension (or env.KEY)" }: Props) {
  const [dim, setDim] = useState("");
  const [value, setValue] = useState("");
  const [dimList, dimChoices] = useChoiceList(dimensions, `${testId}-dimension-choices`);
  const [valueList, valueChoices] = useChoiceList(valuesOf(dim.trim()), `${testId}-value-choices`);
  const add = () => {
    const [d, v] = [dim.trim(), value.trim()];
    if (!d || v === "") return;
    onAdd(d, v);
    setValue("");
  };
  const enter = (e: KeyboardEvent) => {
    if (e.key === "Enter") {
      e.preventDefault();
      add();
    }
  };
  return (
    <div className="filter-add">
      <input
        aria-label="filter dimension"
        list={dimList}
        placeholder={placeholder}
        value={dim}
        onChange={(e) => setDim(e.target.value)}
        onKeyDown={enter}
        size={16}
      />
      {dimChoices}
      <input
        aria-label="filter value"
        list={valueList}
        placeholder="value"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={enter}
        size={12}
      />
      {valueChoices}
      <button type="button" className="button small" onClick={add} disabled={!dim.trim() || value.trim() === ""}>
        Add
      </button>
    </div>
  );
}
