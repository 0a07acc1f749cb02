// Parameters in human units, as the server declares them (backend/perfatlas/core/units.py):
// sizes stored in bytes shown as 128 KiB, durations stored in seconds shown as 250 ms.
import { formatPairs } from "./format";

// The server's SIZE_PARAMETERS and DURATION_PARAMETERS (units.test.ts holds them to its file).
export const SIZE_PARAMETERS = new Set([
  "size", "filesize", "blocksize", "segsize", "readsize", "bs", "perchar_size", "bytes",
  "block_size", "file_size", "record_size", "recordsize",
]);
export const DURATION_PARAMETERS = new Set(["timeout", "duration", "runtime", "interval"]);

export type Unit = "bytes" | "s";

/** "bytes" or "s" for a parameter declared as a size or duration (`param.NAME` or NAME). */
export function unitOf(dimension: string | null | undefined): Unit | null {
  if (!dimension) return null;
  const name = dimension.startsWith("param.") ? dimension.slice(6) : dimension;
  if (name.includes(".")) return null; // label.X, env.X: free text whatever their name
  if (SIZE_PARAMETERS.has(name)) return "bytes";
  if (DURATION_PARAMETERS.has(name)) return "s";
  return null;
}

const SIZES = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/** 131072 -> "128 KiB", 1572864 -> "1.5 MiB", 1023 -> "1023 B". */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  let size = Math.abs(bytes);
  let power = 0;
  while (size >= 1024 && power < SIZES.length - 1) {
    size /= 1024;
    power += 1;
  }
  const text = power ? String(Number(size.toFixed(2))) : String(size);
  return `${bytes < 0 ? "-" : ""}${text} ${SIZES[power]}`;
}

/** 0.25 -> "250 ms", 2 -> "2 s", 90 -> "1.5 min". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return String(seconds);
  const steps: [number, number, string][] = [[1e-6, 1e9, "ns"], [1e-3, 1e6, "µs"], [1, 1e3, "ms"], [60, 1, "s"], [3600, 1 / 60, "min"]];
  for (const [limit, scale, name] of steps) if (Math.abs(seconds) < limit) return `${Number((seconds * scale).toPrecision(3))} ${name}`;
  return `${Number((seconds / 3600).toPrecision(3))} h`;
}

/** A value of `dimension` as people write it: sizes and durations in their units, anything
 * else (and a value that is not a number) as it is. */
export function humanValue(dimension: string | null | undefined, value: unknown): string {
  if (value === null || value === undefined) return "–";
  const unit = unitOf(dimension);
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  if (unit === null || !Number.isFinite(n) || typeof value === "boolean") return String(value);
  return unit === "bytes" ? formatSize(n) : formatDuration(n);
}

/** A value as the tables write it: a size or duration of parameter `name` in its units, any
 * other value as it is (objects as JSON). */
export function paramText(name: string, value: unknown): string {
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return humanValue(name, value);
}

/** Parameters as `k=v k2=v2` with sizes and durations as people write them (segsize=128 KiB);
 * `raw`: the same as stored (segsize=131072), for a title or a CSV column, or null when no
 * value is written differently. */
export function formatParams(params: Record<string, unknown>): { text: string; raw: string | null; pairs: string[] } {
  const pairs = Object.entries(params).map(([k, v]) => `${k}=${paramText(k, v)}`);
  const text = pairs.join(" ");
  const raw = formatPairs(params);
  return { text, raw: raw === text ? null : raw, pairs };
}
