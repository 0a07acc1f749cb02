import { describe, expect, it } from "vitest";
import { changePointsUrl } from "./features/alerts/api/get-change-points";
import { DEFAULT_WINDOW, seriesPointsUrl } from "./features/series/api/get-series-points";
import html from "../index.html?raw";

// index.html asks for a series page's points and change points before the app's code arrives;
// main.tsx uses those answers only when their addresses are the ones the page asks for. The
// addresses index.html builds, for a series id and samples on or off, must be those.

function earlyUrls(id: string, samples: boolean): string[] {
  // the two address expressions of index.html's early requests, evaluated as the browser would
  const found = [...html.matchAll(/\["(?:points|changes)", ("\/api\/v1\/series\/" \+ series\[1\] \+ [^\]]+)\]/g)].map((m) => m[1]!);
  expect(found).toHaveLength(2);
  const sq = new URLSearchParams(samples ? "samples=1" : "");
  const series = [`/series/${id}`, id];
  return found.map((expr) => new Function("series", "sq", `return ${expr};`)(series, sq) as string);
}

describe("index.html's early series requests", () => {
  for (const samples of [false, true]) {
    it(`ask for what the page asks for (samples ${samples ? "on" : "off"})`, () => {
      expect(earlyUrls("42", samples)).toEqual([seriesPointsUrl(42, samples), changePointsUrl(42, DEFAULT_WINDOW)]);
    });
  }
});
