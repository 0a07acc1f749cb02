import { useState } from "react";

/** A button that asks once more before a destructive action: "Delete…" → "Really delete" / "Keep". */
export function ConfirmButton({
  label,
  confirm,
  onConfirm,
  pending = false,
  disabled = false,
}: {
  label: string;
  confirm: string;
  onConfirm: () => void;
  pending?: boolean;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="button small" onClick={() => setAsking(true)} disabled={disabled}>
        {label}…
      </button>
    );
  }
  return (
    <span className="confirm">
      <button
        type="button"
        className="button small danger"
        disabled={pending}
        onClick={() => {
          onConfirm();
          setAsking(false);
        }}
      >
        {confirm}
      </button>
      <button type="button" className="button small" onClick={() => setAsking(false)}>
        Keep
      </button>
    </span>
  );
}
