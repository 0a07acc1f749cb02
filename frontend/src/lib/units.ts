// Parameters in human units, as the server declares them (backend/perfatlas/core/units.py):
// sizes stored in bytes shown as 128 KiB, durations stored in seconds shown as 250 ms.
import { formatPairs } from "./format";

// The server's SIZE_PARAMETERS and DURATION_PARAMETERS (units.test.ts holds them to its file).
export const SIZE_PARAMETERS = new Set([
  "size",
  "filesize",
  "blocksize",
  "segsize",
  "readsize",
  "bs",
  "perchar_size",
  "bytes",
  "block_size",
  "file_size",
  "record_size",
  "recordsize",
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
  const steps: [number, number, string][] = [
    [1e-6, 1e9, "ns"],
    [1e-3, 1e6, "µs"],
    [1, 1e3, "ms"],
    [60, 1, "s"],
    [3600, 1 / 60, "min"],
  ];
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

const SIZE_TEXT = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([kmgtp]?)(i?b?)\s*$/i;
const POWER: Record<string, number> = { "": 0, k: 1, m: 2, g: 3, t: 4, p: 5 };
const DURATION_TEXT = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ns|us|µs|ms|s|sec|m|min|h)?\s*$/i;
const SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, sec: 1, m: 60, min: 60, h: 3600 };

/** Bytes from 131072, 128k, 128 KiB, 4M, 1.5 MiB (k = 1024, as the server's parse_size); null
 * when it is not a whole number of bytes. */
export function parseSize(text: string): number | null {
  const m = SIZE_TEXT.exec(text);
  if (!m) return null;
  const value = Number(m[1]) * 1024 ** (POWER[m[2]!.toLowerCase()] ?? 0);
  return Number.isInteger(value) ? value : null;
}

/** Seconds from 250ms, 2s, 1.5 min, 1h, 30 (the server's parse_duration); null if not one. */
export function parseDuration(text: string): number | null {
  const m = DURATION_TEXT.exec(text);
  if (!m) return null;
  return Number(m[1]) * (SECONDS[(m[2] ?? "s").toLowerCase()] ?? 1);
}

/** A value of `dimension` as typed (128k, 128 KiB) read as a number in the stored unit; null
 * for a dimension without a unit or text that is not one. */
export function parseHuman(dimension: string | null | undefined, text: string): number | null {
  const unit = unitOf(dimension);
  if (unit === null) return null;
  return unit === "bytes" ? parseSize(text) : parseDuration(text);
}

/** The stored value a typed one means: itself when stored as typed, else the stored value of
 * the same size or duration (128k -> "131072"), else the text as typed (free text stays). */
export function storedValue(dimension: string | null | undefined, typed: string, stored: readonly string[]): string {
  const text = typed.trim();
  if (stored.includes(text)) return text;
  const wanted = parseHuman(dimension, text);
  if (wanted === null) return text;
  const same = stored.find((s) => {
    const n = Number(s);
    return s.trim() !== "" && Number.isFinite(n) && Math.abs(n - wanted) <= Math.abs(wanted) * 1e-9;
  });
  return same ?? text;
}

/** A value typed into a filter as people read it: 128k and 131072 both as 128 KiB; text that is
 * not a size or duration (or of a dimension without a unit) as typed. */
export function humanTyped(dimension: string | null | undefined, text: string): string {
  const n = parseHuman(dimension, text);
  return n === null ? humanValue(dimension, text) : humanValue(dimension, n);
}
