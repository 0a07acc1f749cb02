import type { Choice } from "./choices";
import { useChoiceList } from "./ChoiceList";

/** A toolbar text filter that applies on blur or Enter, offering `choices` (what is stored) while
 * any other text may still be typed; it starts again from `value` when that changes elsewhere (a
 * cleared filter, the back button). */
export function FilterInput({
  label,
  value,
  placeholder,
  onApply,
  choices = [],
  testId,
}: {
  label: string;
  value: string;
  placeholder?: string;
  onApply: (value: string) => void;
  choices?: readonly Choice[];
  testId?: string;
}) {
  const [listId, list] = useChoiceList(choices, testId ? `${testId}-choices` : undefined);
  return (
    <label className="field inline">
      <span>{label}</span>
      <input
        key={`${label}-${value}`}
        defaultValue={value}
        placeholder={placeholder}
        list={listId}
        data-testid={testId}
        onBlur={(e) => onApply(e.target.value.trim())}
        onKeyDown={(e) => e.key === "Enter" && onApply(e.currentTarget.value.trim())}
        // a pick from the list arrives whole (not typed): apply it at once
        onChange={(e) => {
          const picked = !("inputType" in e.nativeEvent) || (e.nativeEvent as InputEvent).inputType === "insertReplacementText";
          if (picked && choices.some((c) => c.value === e.target.value)) onApply(e.target.value);
        }}
      />
      {list}
    </label>
  );
}
