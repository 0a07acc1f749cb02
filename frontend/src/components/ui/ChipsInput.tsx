import { useId, useState } from "react";

/** A list of short texts as chips: type one and press Enter (or a comma, or leave the field) to add
 * it; × removes it. `check` refuses an item with a reason; `suggestions` fill a datalist. */
export function ChipsInput({
  label, values, onChange, placeholder, suggestions = [], check, testId, splitOnComma = true, offer,
}: {
  label: string;
  values: string[];
  onChange: (values: string[]) => void;
  placeholder?: string;
  suggestions?: string[];
  check?: (item: string) => string | null;
  testId?: string;
  splitOnComma?: boolean;
  /** suggestions also shown as buttons that add them (with this caption) */
  offer?: string;
}) {
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const listId = useId();
  const add = (raw: string) => {
    const items = (splitOnComma ? raw.split(",") : [raw]).map((s) => s.trim()).filter(Boolean);
    const next = [...values];
    for (const item of items) {
      const why = check?.(item) ?? null;
      if (why) {
        setProblem(why);
        setText(item);
        return;
      }
      if (!next.includes(item)) next.push(item);
    }
    setProblem(null);
    setText("");
    if (next.length !== values.length) onChange(next);
  };
  const offered = suggestions.filter((s) => !values.includes(s));
  return (
    <div className="chips-input" data-testid={testId}>
      <div className="chips">
        {values.map((v) => (
          <span key={v} className="chip">
            {v}
            <button type="button" aria-label={`remove ${v}`} onClick={() => onChange(values.filter((x) => x !== v))}>
              ×
            </button>
          </span>
        ))}
        <input
          aria-label={label}
          value={text}
          placeholder={values.length === 0 ? placeholder : "add another…"}
          list={offered.length > 0 ? listId : undefined}
          onChange={(e) => {
            const value = e.target.value;
            // a pick from the datalist arrives as a whole value (not typed): take it at once
            const picked = (e.nativeEvent as InputEvent).inputType === "insertReplacementText" || !("inputType" in e.nativeEvent);
            if (picked && offered.includes(value)) add(value);
            else if (splitOnComma && value.includes(",")) add(value);
            else setText(value);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              add(text);
            } else if (e.key === "Backspace" && text === "" && values.length > 0) {
              onChange(values.slice(0, -1));
            }
          }}
          onBlur={() => text.trim() && add(text)}
        />
      </div>
      {offered.length > 0 && (
        <datalist id={listId}>
          {offered.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      )}
      {offer && offered.length > 0 && (
        <div className="offer">
          <span className="muted small">{offer}</span>{" "}
          {offered.map((s) => (
            <button key={s} type="button" className="chip chip-add" onClick={() => add(s)}>
              + {s}
            </button>
          ))}
        </div>
      )}
      {problem && <div className="field-error">{problem}</div>}
    </div>
  );
}
