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
    const gone = Object.keys(before)
      .filter((name) => !(name in span.labels))
      .map((name) => `no ${name}`);
    changes.push({ at: span.at, t: t[span.at] ?? "", text: [...changed, ...gone].join(" · ") });
  }
  return changes;
}

/** Where a version change's name goes above the plot: in which row (0 nearest the plot), on
 * which side of its line; null when it fits in no row (its line stays, and the points' hover
 * still names the version). */
export type NamePlace = { row: number; xanchor: "left" | "right" } | null;

/** Rows above the plot for the names (the figure leaves room for two). */
export const NAME_ROWS = 2;
/** A name's width in pixels, estimated from its length (10 px text: ~6 px a character, and
 * plotly's padding), on the generous side so that names estimated apart are apart. */
export function nameWidth(text: string): number {
  return 6.2 * text.length + 8;
}

/** Places the version changes' names (times in ms since the epoch, oldest first) over a plot
 * `width` pixels wide spanning the times `from`..`to`: each to the right of its line in the
 * first row where it overlaps no name already placed, else to the left of its line (a name
 * near the plot's right edge), else nowhere. */
export function placeNames(changes: { at: number; text: string }[], from: number, to: number, width: number, gap = 6): NamePlace[] {
  const span = to - from;
  const rows: [number, number][][] = Array.from({ length: NAME_ROWS }, () => []);
  return changes.map((c) => {
    const x = span > 0 ? ((c.at - from) / span) * width : 0;
    const w = nameWidth(c.text);
    const sides: [NamePlace & object, [number, number]][] = [
      [{ row: 0, xanchor: "left" }, [x, x + w]],
      [{ row: 0, xanchor: "right" }, [x - w, x]],
    ];
    for (let row = 0; row < NAME_ROWS; row++) {
      for (const [place, [a, b]] of sides) {
        // Within the plot's width (the margins hold a little more), clear of the row's names.
        if (a < -8 || b > width + 16) continue;
        const taken = rows[row] ?? [];
        if (taken.some(([l, r]) => a < r + gap && b > l - gap)) continue;
        taken.push([a, b]);
        return { row, xanchor: place.xanchor };
      }
    }
    return null;
  });
}
