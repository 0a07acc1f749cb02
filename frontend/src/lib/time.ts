// Times shown in a given IANA time zone (the user's, or a schedule's), and how long ago or until.

/** The browser's IANA time zone (Europe/Paris), UTC when it cannot tell. */
export function userTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** Every IANA zone name the browser knows (for a picker's suggestions). */
export function timeZones(): string[] {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return ["UTC"];
  }
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone.trim() !== "";
  } catch {
    return false;
  }
}

/** `Mon 2026-11-23 03:00` on the wall clock of `zone` (weekday left out with weekday=false). */
export function formatInZone(iso: string | null | undefined, zone: string, { weekday = true } = {}): string {
  if (!iso) return "–";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      weekday: "short",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).formatToParts(d);
  } catch {
    return d.toISOString();
  }
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  const text = `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}`;
  return weekday ? `${part("weekday")} ${text}` : text;
}

function span(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}

/** `12 s ago`, `3 min ago`; `in 5 h` for a time to come. */
export function relativeTime(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return "–";
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return iso;
  const seconds = Math.round((now - t) / 1000);
  return seconds >= 0 ? `${span(seconds)} ago` : `in ${span(-seconds)}`;
}

const ISO_MICROS = /^(.+T\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(Z|[+-]\d\d:\d\d)$/;

/** An ISO time as the API writes it (microseconds at most) as microseconds since 1970, exactly
 * (a double holds them for 285 years either side). Null for what is not such a time. */
export function microsecondsOf(iso: string): number | null {
  const m = ISO_MICROS.exec(iso);
  if (!m) return null;
  const ms = new Date(`${m[1]}${m[3]}`).getTime();
  if (Number.isNaN(ms)) return null;
  return ms * 1000 + Number((m[2] ?? "").padEnd(6, "0"));
}

/** The instant one microsecond after an ISO time as the API writes it (microseconds at most),
 * in UTC: the `until` of a window that still holds every point at that time (`until` is
 * exclusive). Null for what is not such a time. */
export function afterMicrosecond(iso: string): string | null {
  const micros = microsecondsOf(iso);
  if (micros === null) return null;
  const next = micros + 1;
  const ms = Math.floor(next / 1000);
  const fraction = String(next - ms * 1000).padStart(3, "0");
  return new Date(ms).toISOString().replace(/Z$/, `${fraction}Z`);
}
