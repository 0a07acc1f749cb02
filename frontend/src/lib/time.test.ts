import { describe, expect, it } from "vitest";
import { afterMicrosecond, formatInZone, isTimeZone, microsecondsOf, relativeTime } from "./time";

describe("formatInZone", () => {
  it("reads one instant on each zone's wall clock, summer and winter offsets", () => {
    // 2026-11-23 02:00 UTC: Paris is on UTC+1 (CET), New York on UTC-5, Kolkata on UTC+5:30.
    const t = "2026-11-23T02:00:00Z";
    expect(formatInZone(t, "UTC")).toBe("Mon 2026-11-23 02:00");
    expect(formatInZone(t, "Europe/Paris")).toBe("Mon 2026-11-23 03:00");
    expect(formatInZone(t, "America/New_York")).toBe("Sun 2026-11-22 21:00");
    expect(formatInZone(t, "Asia/Kolkata", { weekday: false })).toBe("2026-11-23 07:30");
    // In July Paris is on UTC+2 (CEST).
    expect(formatInZone("2026-07-01T01:00:00Z", "Europe/Paris")).toBe("Wed 2026-07-01 03:00");
  });

  it("shows midnight as 00:00, not 24:00", () => {
    expect(formatInZone("2026-11-22T23:00:00Z", "Europe/Paris", { weekday: false })).toBe("2026-11-23 00:00");
  });

  it("says – for no time", () => {
    expect(formatInZone(null, "UTC")).toBe("–");
  });
});

describe("relativeTime", () => {
  const now = Date.parse("2026-11-23T12:00:00Z");
  it("counts seconds, minutes, hours and days, past and future", () => {
    expect(relativeTime("2026-11-23T11:59:48Z", now)).toBe("12 s ago");
    expect(relativeTime("2026-11-23T11:57:00Z", now)).toBe("3 min ago");
    expect(relativeTime("2026-11-23T17:00:00Z", now)).toBe("in 5 h");
    expect(relativeTime("2026-11-20T12:00:00Z", now)).toBe("3 days ago");
    expect(relativeTime(null, now)).toBe("–");
  });
});

describe("isTimeZone", () => {
  it("knows IANA names and refuses others", () => {
    expect(isTimeZone("Europe/Paris")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("")).toBe(false);
  });
});

describe("afterMicrosecond", () => {
  it("adds a microsecond to the times the API writes, in UTC", () => {
    expect(afterMicrosecond("2025-01-02T17:39:30+00:00")).toBe("2025-01-02T17:39:30.000001Z");
    expect(afterMicrosecond("2025-01-02T17:39:30.123456+00:00")).toBe("2025-01-02T17:39:30.123457Z");
    expect(afterMicrosecond("2025-01-02T17:39:30.5Z")).toBe("2025-01-02T17:39:30.500001Z");
    expect(afterMicrosecond("2025-01-02T19:39:30.25+02:00")).toBe("2025-01-02T17:39:30.250001Z");
  });
  it("carries into the next second, minute and year", () => {
    expect(afterMicrosecond("2025-12-31T23:59:59.999999+00:00")).toBe("2026-01-01T00:00:00.000000Z");
  });
  it("refuses what is not such a time", () => {
    expect(afterMicrosecond("yesterday")).toBeNull();
    expect(afterMicrosecond("2025-01-02")).toBeNull();
  });
  it("steps across 1970 too", () => {
    expect(afterMicrosecond("1969-12-31T23:59:59.999999Z")).toBe("1970-01-01T00:00:00.000000Z");
    expect(afterMicrosecond("1969-12-31T23:59:59.000001Z")).toBe("1969-12-31T23:59:59.000002Z");
  });
});

describe("microsecondsOf", () => {
  it("reads every microsecond, whatever the offset", () => {
    expect(microsecondsOf("1970-01-01T00:00:00Z")).toBe(0);
    expect(microsecondsOf("1970-01-01T00:00:01.000001+00:00")).toBe(1_000_001);
    expect(microsecondsOf("1970-01-01T02:00:00.5+02:00")).toBe(500_000);
    expect(microsecondsOf("1969-12-31T23:59:59.999999Z")).toBe(-1);
  });
  it("orders times one microsecond apart, which milliseconds cannot", () => {
    const a = microsecondsOf("2026-11-29T10:00:00.123456Z") ?? 0;
    const b = microsecondsOf("2026-11-29T10:00:00.123457+00:00") ?? 0;
    expect(b - a).toBe(1);
  });
  it("refuses what is not such a time", () => {
    expect(microsecondsOf("2026-11-29")).toBeNull();
    expect(microsecondsOf("2026-13-45T10:00:00Z")).toBeNull();
  });
});
