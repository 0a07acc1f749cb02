import type { Run } from "../api/get-run";
import { FLAG_TEXT } from "../trust";

/** Why some numbers of this run need care, first thing on the page. */
export function TrustNotes({ run }: { run: Run }) {
  if (run.trust.length === 0) return null;
  return (
    <section className="banner warn trust-notes" data-testid="trust-notes">
      <strong>Read these numbers with care:</strong>
      <ul>
        {run.trust.map((t) => (
          <li key={t.flag}>
            <span className="badge warn">{FLAG_TEXT[t.flag] ?? t.flag}</span> {t.reason}{" "}
            <span className="muted small mono">({t.metrics.length === run.results.length ? "every metric" : t.metrics.join(", ")})</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
