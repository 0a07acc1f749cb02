import { describe, expect, it } from "vitest";
import { holdsNewest } from "./window";

describe("holdsNewest", () => {
  const t = ["2026-06-01T00:00:00+00:00", "2026-06-01T00:10:00.000500+00:00"];
  it("is the newest window when its last point is the series' newest", () => {
    expect(holdsNewest(t, "2026-06-01T00:10:00.000500Z")).toBe(true);
  });
  it("is an older one when the series has a newer point, even a microsecond newer", () => {
    expect(holdsNewest(t, "2026-06-01T00:10:00.000501+00:00")).toBe(false);
    expect(holdsNewest(t, "2026-06-02T00:00:00+00:00")).toBe(false);
  });
  it("is no window at all when nothing is shown or the series has no time", () => {
    expect(holdsNewest([], "2026-06-01T00:00:00Z")).toBe(false);
    expect(holdsNewest(t, null)).toBe(false);
  });
});
