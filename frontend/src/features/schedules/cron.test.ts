import { describe, expect, it } from "vitest";
import { CRON_PRESETS, describeCron, describeWhen, whenKind } from "./cron";

describe("describeCron", () => {
  it("puts the common shapes into words", () => {
    const cases: [string, string][] = [
      ["0 3 * * *", "every day at 03:00"],
      ["30 22 * * *", "every day at 22:30"],
      ["0 6 * * 1-5", "on weekdays at 06:00"],
      ["0 6 * * mon-fri", "on weekdays at 06:00"],
      ["0 2 * * 0", "every Sunday at 02:00"],
      ["0 2 * * 7", "every Sunday at 02:00"],
      ["15 4 * * 1,3,5", "on Monday, Wednesday and Friday at 04:15"],
      ["0 9 * * 2-4", "Tuesday to Thursday at 09:00"],
      ["0 10 * * 6,0", "on weekends at 10:00"],
      ["0 3,15 * * *", "every day at 03:00 and 15:00"],
      ["0 * * * *", "every hour"],
      ["20 * * * *", "every hour at minute 20"],
      ["*/15 * * * *", "every 15 minutes"],
      ["* * * * *", "every minute"],
      ["5 */6 * * *", "every 6 hours at minute 5"],
      ["0 4 1 * *", "on the 1st of every month at 04:00"],
      ["0 4 22 * *", "on the 22nd of every month at 04:00"],
      ["0 4 13 * *", "on the 13th of every month at 04:00"],
      ["0 0 25 12 *", "every year on December 25 at 00:00"],
    ];
    for (const [cron, words] of cases) expect(describeCron(cron), cron).toBe(words);
  });

  it("gives up (null) on what it cannot say simply or that is not a cron", () => {
    for (const cron of ["0 3 1-7 * 1", "0-30/5 * * * *", "0 3 * *", "99 3 * * *", "0 3 L * *", "0 25 * * *"]) {
      expect(describeCron(cron), cron).toBeNull();
    }
  });

  it("describes every preset in words that match its label", () => {
    for (const preset of CRON_PRESETS) expect(describeCron(preset.cron)).not.toBeNull();
    expect(describeCron(CRON_PRESETS[0]!.cron)).toBe(CRON_PRESETS[0]!.label);
  });
});

describe("describeWhen", () => {
  it("says now, once at a wall time in the zone, or the cron in words with its zone", () => {
    expect(describeWhen("now", "Europe/Paris")).toBe("now");
    expect(describeWhen("cron:0 3 * * *", "Europe/Paris")).toBe("every day at 03:00 Europe/Paris");
    expect(describeWhen("cron:0 3 1-7 * 1", "UTC")).toBe("cron “0 3 1-7 * 1” UTC");
    expect(describeWhen("2026-12-01T06:00", "America/New_York")).toBe("once at 2026-12-01 06:00 America/New_York");
    expect(describeWhen("2026-12-01T06:00:00+01:00", "UTC")).toBe("once at 2026-12-01 06:00 UTC+01:00");
    expect(describeWhen("2026-12-01T06:00:00Z", "Europe/Paris")).toBe("once at 2026-12-01 06:00 UTC");
  });

  it("tells the kinds apart", () => {
    expect(whenKind(" now ")).toBe("now");
    expect(whenKind("cron:* * * * *")).toBe("cron");
    expect(whenKind("2026-12-01T06:00")).toBe("once");
  });
});
