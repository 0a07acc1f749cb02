import type { Run } from "../api/get-run";
import { referenceSource } from "../reference";

/** A reference run's numbers are published figures, not a measurement: said first thing. */
export function ReferenceBanner({ run }: { run: Run }) {
  const source = referenceSource(run);
  if (!source) return null;
  return (
    <section className="banner info" data-testid="reference-banner">
      <strong>
        Reference figures from{" "}
        {source.url ? (
          <a href={source.url} rel="noreferrer noopener" target="_blank">
            {source.host}
          </a>
        ) : (
          source.host
        )}
      </strong>
      {source.title && <> — {source.title}</>}
      {source.column && <span className="muted"> (column “{source.column}”)</span>}
      <p>{source.description}</p>
      {source.note && <p className="muted small">{source.note}</p>}
      <p className="muted small">Entered by hand from the source: never used by detection or as an alert’s baseline.</p>
    </section>
  );
}
