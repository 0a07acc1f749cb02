// How a compare cell is coloured: by the server's better/worse verdict, stronger when the change
// is large. Changes under NOISE_PCT are shown neutral: most storage benchmarks wobble that much.
export type Tone = "base" | "same" | "better" | "worse" | "much-better" | "much-worse" | "missing";

export const NOISE_PCT = 2;
export const LARGE_PCT = 10;

export function diffTone(diffPct: number | null | undefined, better: boolean | null | undefined, isBaseline = false): Tone {
  if (isBaseline) return "base";
  if (diffPct === null || diffPct === undefined || !Number.isFinite(diffPct)) return "missing";
  const size = Math.abs(diffPct);
  if (size < NOISE_PCT || better === null || better === undefined) return "same";
  if (better) return size >= LARGE_PCT ? "much-better" : "better";
  return size >= LARGE_PCT ? "much-worse" : "worse";
}

/** The compare page's URL holds the run uuids in order, the first being the baseline. */
export function parseRuns(value: string | null): string[] {
  if (!value) return [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of value.split(",")) {
    const id = part.trim();
    if (id && !seen.has(id)) {
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}
