// A schedule's `when` in words: "every day at 03:00 Europe/Paris", "once at 2026-12-01 06:00 UTC", "now".
// The common cron shapes are put into words; anything else is shown as the cron itself.

export const CRON_PRESETS: readonly { label: string; cron: string }[] = [
  { label: "every day at 03:00", cron: "0 3 * * *" },
  { label: "weekdays at 06:00", cron: "0 6 * * 1-5" },
  { label: "Sundays at 02:00", cron: "0 2 * * 0" },
  { label: "every hour", cron: "0 * * * *" },
  { label: "every 15 minutes", cron: "*/15 * * * *" },
  { label: "the 1st of each month at 04:00", cron: "0 4 1 * *" },
];

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const DAY_NAMES: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

const NUMBER = /^\d{1,2}$/;

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

function num(field: string, lo: number, hi: number): number | null {
  if (!NUMBER.test(field)) return null;
  const n = Number(field);
  return n >= lo && n <= hi ? n : null;
}

function step(field: string, lo: number, hi: number): number | null {
  const m = /^\*\/(\d{1,2})$/.exec(field);
  if (!m) return null;
  const n = Number(m[1]);
  return n >= 1 && n <= hi - lo ? n : null;
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

function day(field: string): number | null {
  const name = DAY_NAMES[field.toLowerCase()];
  if (name !== undefined) return name;
  const n = num(field, 0, 7);
  return n === null ? null : n % 7;
}

/** "on weekdays", "every Sunday", "on Monday, Wednesday and Friday"; null when not that simple. */
function daysOfWeek(field: string): string | null {
  const lower = field.toLowerCase();
  if (lower === "1-5" || lower === "mon-fri") return "on weekdays";
  if (lower === "0,6" || lower === "6,0" || lower === "sat,sun" || lower === "sun,sat" || lower === "6-7") return "on weekends";
  const range = /^([a-z0-9]+)-([a-z0-9]+)$/.exec(lower);
  if (range) {
    const a = day(range[1] ?? "");
    const b = day(range[2] ?? "");
    if (a === null || b === null) return null;
    return `${DAYS[a]} to ${DAYS[b]}`;
  }
  const days = lower.split(",").map(day);
  if (days.some((d) => d === null)) return null;
  if (days.length === 1) return `every ${DAYS[days[0] as number]}`;
  return `on ${list(days.map((d) => DAYS[d as number] as string))}`;
}

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : (({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th");
  return `${n}${s}`;
}

/** Five cron fields in words, without the time zone; null when they are not a common shape. */
export function describeCron(fields: string): string | null {
  const f = fields.trim().split(/\s+/);
  if (f.length !== 5) return null;
  const [minute, hour, dom, month, dow] = f as [string, string, string, string, string];
  const everyDay = dom === "*" && month === "*" && dow === "*";
  if (everyDay && minute === "*" && hour === "*") return "every minute";
  const minuteStep = step(minute, 0, 59);
  if (everyDay && minuteStep !== null && hour === "*") return minuteStep === 1 ? "every minute" : `every ${minuteStep} minutes`;
  const m = num(minute, 0, 59);
  if (m === null) return null;
  if (everyDay && hour === "*") return m === 0 ? "every hour" : `every hour at minute ${m}`;
  const hourStep = step(hour, 0, 23);
  if (everyDay && hourStep !== null) return `every ${hourStep} hours at minute ${m}`;
  const hours = hour.split(",").map((h) => num(h, 0, 23));
  if (hours.some((h) => h === null)) return null;
  const at = `at ${list(hours.map((h) => `${pad(h as number)}:${pad(m)}`))}`;
  if (everyDay) return `every day ${at}`;
  if (dom === "*" && month === "*") {
    const days = daysOfWeek(dow);
    return days === null ? null : `${days} ${at}`;
  }
  if (dow !== "*") return null;
  const d = num(dom, 1, 31);
  if (d === null) return null;
  if (month === "*") return `on the ${ordinal(d)} of every month ${at}`;
  const mo = num(month, 1, 12);
  return mo === null ? null : `every year on ${MONTHS[mo - 1]} ${d} ${at}`;
}

export type WhenKind = "now" | "once" | "cron";

export function whenKind(when: string): WhenKind {
  const text = when.trim();
  if (text === "now") return "now";
  if (text.startsWith("cron:")) return "cron";
  return "once";
}

/** A `when` as a person reads it, with the zone its wall times are in. */
export function describeWhen(when: string, timezone: string): string {
  const text = when.trim();
  const kind = whenKind(text);
  if (kind === "now") return "now";
  if (kind === "cron") {
    const fields = text.slice("cron:".length).trim();
    const words = describeCron(fields);
    return `${words ?? `cron “${fields}”`} ${timezone}`;
  }
  // An ISO time as written: without an offset it is read in the schedule's zone.
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(\.\d+)?)?(.*)$/.exec(text);
  if (!m) return `once at ${text}`;
  const offset = m[5] ?? "";
  return `once at ${m[1]} ${m[2]}${offset ? ` ${offset === "Z" ? "UTC" : `UTC${offset}`}` : ` ${timezone}`}`;
}
