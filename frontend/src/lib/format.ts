export function formatNumber(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  const abs = Math.abs(value);
  if (abs !== 0 && (abs >= 1e6 || abs < 1e-3)) return value.toExponential(2);
  return value.toLocaleString("en-US", { maximumSignificantDigits: Math.max(digits, abs >= 1000 ? Math.ceil(Math.log10(abs + 1)) : digits) });
}

/** A count, whole and with thousands separators however large (formatNumber turns a million
 * into 1.00e+6). */
export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  return Math.round(value).toLocaleString("en-US");
}

/** Where a cursor-paged list's page starts, from its address: 1 on the first page (no cursor),
 * the `at` carried along with the cursor, or null (not known) for a cursor alone. */
export function pageStart(params: URLSearchParams): number | null {
  if (!params.get("cursor")) return 1;
  return params.has("at") ? Math.max(1, Number(params.get("at")) || 1) : null;
}

/** Which rows of a cursor-paged list are shown: "Runs 51–100 of 1,234 that match, newest first."
 * `at` is the first row's place (1 on the first page; null when not known, as for an address
 * typed with a cursor alone); `total` is null when the server did not count (then only the
 * range is said), and a list that fits on one page is just counted. */
export function describePage(p: { noun: [string, string]; total: number | null; at: number | null; shown: number; filtered: boolean; order: string }): string {
  const [one, many] = p.noun;
  const matching = p.filtered ? " that match" : "";
  const Many = many.charAt(0).toUpperCase() + many.slice(1);
  if (p.at === null) {
    const shown = `${formatCount(p.shown)} ${p.shown === 1 ? one : many}`;
    if (p.total === null) return `${shown}${p.filtered ? (p.shown === 1 ? " that matches" : " that match") : ""}, ${p.order}.`;
    return `${shown} of ${formatCount(p.total)}${matching}, ${p.order}.`;
  }
  const range = `${formatCount(p.at)}–${formatCount(p.at + p.shown - 1)}`;
  if (p.total === null) return `${Many} ${range}${matching}, ${p.order}.`;
  if (p.at === 1 && p.shown === p.total)
    return `${formatCount(p.total)} ${p.total === 1 ? one : many}${p.filtered ? (p.total === 1 ? " matches" : " match") : ""}, ${p.order}.`;
  return `${Many} ${range} of ${formatCount(p.total)}${matching}, ${p.order}.`;
}

export function formatPercent(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  const sign = value > 0 ? "+" : "";
  return `${sign}${value.toFixed(Math.abs(value) < 10 ? 1 : 0)} %`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "–";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

export function timeAgo(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return "never";
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (seconds < 60) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

export function shortId(uuid: string): string {
  return uuid.slice(0, 8);
}

export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "–";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Parameters or labels as `k=v k2=v2`, as they are written on the command line. */
export function formatPairs(obj: Record<string, unknown>): string {
  return Object.entries(obj)
    .map(([k, v]) => `${k}=${formatValue(v)}`)
    .join(" ");
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
