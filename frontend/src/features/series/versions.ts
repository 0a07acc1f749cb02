// The points' version labels (the API's spans: points from `at` on share `labels`), as hover
// text and as marks on the time axis where a version changes.
import type { VersionSpan } from "./api/get-series-points";

/** More changes than this in a window are not each marked (their lines would hide the plot). */
export const MAX_VERSION_MARKS = 40;

export function describeVersions(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([name, value]) => `${name} ${value}`)
    .join(" · ");
}

/** One hover line per point: its version labels (empty when it has none). */
export function versionTexts(spans: VersionSpan[], count: number): string[] {
  const texts = new Array<string>(count).fill("");
  spans.forEach((span, i) => {
    const end = Math.min(spans[i + 1]?.at ?? count, count);
    texts.fill(describeVersions(span.labels), span.at, end);
  });
  return texts;
}

export type VersionChange = { at: number; t: string; text: string };

/** Where a version label changes between consecutive points: the first point of each span but
 * the first, named by what changed ("fs_version 2.2.2", "kernel 6.8.0"; "no kernel" when a
 * label is gone). */
export function versionChanges(spans: VersionSpan[], t: string[]): VersionChange[] {
  const changes: VersionChange[] = [];
  for (let i = 1; i < spans.length; i++) {
    const before = spans[i - 1]?.labels ?? {};
    const span = spans[i];
    if (!span || span.at >= t.length) continue;
    const changed = Object.entries(span.labels)
      .filter(([name, value]) => before[name] !== value)
      .map(([name, value]) => `${name} ${value}`);
    const gone = Object.keys(before).filter((name) => !(name in span.labels)).map((name) => `no ${name}`);
    changes.push({ at: span.at, t: t[span.at] ?? "", text: [...changed, ...gone].join(" · ") });
  }
  return changes;
}
