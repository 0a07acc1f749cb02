import { useId, useState } from "react";
import { parseMetrics } from "../diff";

type Props = { value: string[]; metrics: string[]; onChange: (metrics: string[]) => void };

/** Which metrics to show: names or globs (`*.seconds`), comma-separated; empty means all. */
export function MetricPicker({ value, metrics, onChange }: Props) {
  const [text, setText] = useState(value.join(", "));
  const listId = useId();
  const apply = () => onChange(parseMetrics([text]));
  const phases = [...new Set(metrics.map((m) => m.split(".").slice(1).join(".")).filter(Boolean))];
  return (
    <div className="field metric-picker">
      <span>metrics</span>
      <div className="filter-add">
        <input
          aria-label="metrics"
          data-testid="metric-picker"
          size={36}
          list={listId}
          placeholder="all (or names, globs: *.seconds, create.*)"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              apply();
            }
          }}
        />
        <datalist id={listId}>
          {[...phases.map((p) => `*.${p}`), ...metrics].map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <button type="button" className="button small" onClick={apply}>
          Show
        </button>
        {value.length > 0 && (
          <button
            type="button"
            className="button small"
            onClick={() => {
              setText("");
              onChange([]);
            }}
          >
            All
          </button>
        )}
      </div>
    </div>
  );
}
