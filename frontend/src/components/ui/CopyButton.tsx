import { useState } from "react";

/** Copies `text`; says so, or asks to copy by hand where the clipboard is not allowed. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<"" | "yes" | "no">("");
  return (
    <button
      type="button"
      className="button small"
      onClick={() => {
        // the clipboard needs a secure context (https or localhost); elsewhere the text stays selectable
        if (!navigator.clipboard) setCopied("no");
        else
          navigator.clipboard.writeText(text).then(
            () => setCopied("yes"),
            () => setCopied("no"),
          );
      }}
    >
      {copied === "yes" ? "Copied ✓" : copied === "no" ? "Select and copy by hand" : label}
    </button>
  );
}
