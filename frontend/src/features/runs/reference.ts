// A reference run: published figures entered by hand (POST /references). What its banner says.
import type { Run } from "./api/get-run";

export type ReferenceSource = {
  url: string;
  /** The URL's host, what the banner names: "codawiki.cse.chalmers.se". */
  host: string;
  title: string | null;
  description: string | null;
  note: string | null;
  column: string | null;
};

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/** Where a reference run's figures come from; null for a measured run. Only http(s) URLs are
 * linked: anything else in meta is shown as text, never as a link. */
export function referenceSource(run: Pick<Run, "reference" | "meta">): ReferenceSource | null {
  if (!run.reference) return null;
  const meta = (run.meta ?? {}) as Record<string, unknown>;
  const url = text(meta.source_url) ?? "";
  let host: string;
  try {
    const parsed = new URL(url);
    host = parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.host : "";
  } catch {
    host = "";
  }
  return {
    url: host ? url : "",
    host: host || url || "an unnamed source",
    title: text(meta.title),
    description: text(meta.description),
    note: text(meta.note),
    column: text(meta.column),
  };
}
