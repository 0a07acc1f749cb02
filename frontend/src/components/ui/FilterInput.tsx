/** A toolbar text filter that applies on blur or Enter; it starts again from `value` when that
 * changes elsewhere (a cleared filter, the back button). */
export function FilterInput({ label, value, placeholder, onApply }: { label: string; value: string; placeholder?: string; onApply: (value: string) => void }) {
  return (
    <label className="field inline">
      <span>{label}</span>
      <input
        key={`${label}-${value}`}
        defaultValue={value}
        placeholder={placeholder}
        onBlur={(e) => onApply(e.target.value.trim())}
        onKeyDown={(e) => e.key === "Enter" && onApply(e.currentTarget.value.trim())}
      />
    </label>
  );
}
