import { useState } from "react";
import type { Choice } from "./choices";
import { useChoiceList } from "./ChoiceList";

/** A list of short texts as chips: type one and press Enter (or a comma, or leave the field) to add
 * it; × removes it. `check` refuses an item with a reason; `suggestions` (or `choices`, with
 * labels) fill a datalist; `normalize` turns a typed item into the value kept (128k -> 131072);
 * `show` is a chip's text. */
export function ChipsInput({
  label,
  values,
  onChange,
  placeholder,
  suggestions = [],
  choices,
  check,
  testId,
  splitOnComma = true,
  offer,
  normalize,
  show,
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
  choices?: readonly Choice[];
  normalize?: (item: string) => string;
  show?: (value: string, index: number) => string;
}) {
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const add = (raw: string) => {
    const items = (splitOnComma ? raw.split(",") : [raw])
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => normalize?.(s) ?? s);
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
  const all: readonly Choice[] = choices ?? suggestions.map((value) => ({ value }));
  const shown = all.filter((c) => !values.includes(c.value));
  const offered = shown.map((c) => c.value);
  const [listId, datalist] = useChoiceList(shown, testId ? `${testId}-choices` : undefined);
  return (
    <div className="chips-input" data-testid={testId}>
      <div className="chips">
        {values.map((v, i) => (
          <span key={v} className="chip">
            {show ? show(v, i) : v}
            <button type="button" aria-label={`remove ${v}`} onClick={() => onChange(values.filter((x) => x !== v))}>
              ×
            </button>
          </span>
        ))}
        <input
          aria-label={label}
          value={text}
          placeholder={values.length === 0 ? placeholder : "add another…"}
          list={listId}
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
      {datalist}
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
