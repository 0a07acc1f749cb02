import { flagsTitle } from "../diff";

/** A mark on a number that may not mean what it seems; the reasons show on hover. */
export function TrustMark({ flags, reasons }: { flags: string[]; reasons: Record<string, string> }) {
  if (flags.length === 0) return null;
  const title = flagsTitle(flags, reasons);
  return (
    <span
      className="trust-mark"
      title={title}
      aria-label={`trust: ${flags.join(", ").replace(/_/g, " ")}`}
      data-testid="trust-mark"
      data-flags={flags.join(" ")}
    >
      ⚑
    </span>
  );
}
