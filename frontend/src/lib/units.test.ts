import { describe, expect, it } from "vitest";
import serverUnits from "../../../backend/perfatlas/core/units.py?raw";
import {
  DURATION_PARAMETERS,
  SIZE_PARAMETERS,
  formatDuration,
  formatParams,
  formatSize,
  humanTyped,
  humanValue,
  paramText,
  parseDuration,
  parseHuman,
  parseSize,
  storedValue,
  unitOf,
} from "./units";

function declared(name: string): string[] {
  const block = new RegExp(`${name} = frozenset\\(\\{([^}]*)\\}`).exec(serverUnits)?.[1] ?? "";
  return [...block.matchAll(/"([^"]+)"/g)].map((m) => m[1]!).sort();
}

describe("units", () => {
  it("declares the parameters the server declares", () => {
    expect(declared("SIZE_PARAMETERS")).toEqual([...SIZE_PARAMETERS].sort());
    expect(declared("DURATION_PARAMETERS")).toEqual([...DURATION_PARAMETERS].sort());
    expect(SIZE_PARAMETERS.has("segsize")).toBe(true);
  });

  it.each([
    [0, "0 B"],
    [1023, "1023 B"],
    [1024, "1 KiB"],
    [1536, "1.5 KiB"],
    [131072, "128 KiB"],
    [4 << 20, "4 MiB"],
    [1572864, "1.5 MiB"],
    [3 * 2 ** 30, "3 GiB"],
    [1000000, "976.56 KiB"],
  ])("formats %d bytes as %s", (bytes, text) => {
    expect(formatSize(bytes)).toBe(text);
  });

  it("formats durations and only declared parameters", () => {
    expect([0.25, 2, 90, 3600, 0.0005].map(formatDuration)).toEqual(["250 ms", "2 s", "1.5 min", "1 h", "500 µs"]);
    expect(unitOf("param.segsize")).toBe("bytes");
    expect(unitOf("label.segsize")).toBeNull();
    expect(humanValue("segsize", 131072)).toBe("128 KiB");
    expect(humanValue("segsize", "131072")).toBe("128 KiB");
    expect(humanValue("segsize", "30B")).toBe("30B");
    expect(humanValue("count", 131072)).toBe("131072");
    expect(humanValue("timeout", 0.25)).toBe("250 ms");
    expect(humanValue("segsize", null)).toBe("–");
  });

  it.each([
    ["131072", 131072],
    ["128k", 131072],
    ["128K", 131072],
    ["128 KiB", 131072],
    ["128kb", 131072],
    ["4M", 4 << 20],
    ["1.5 MiB", 1572864],
    [" 64 k ", 65536],
    ["1.5k", 1536],
    ["0.1k", null],
    ["128 kilo", null],
    ["", null],
  ])("reads the size %s as the server does: %s", (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it("reads durations and only a declared parameter's human units", () => {
    expect(["250ms", "2s", "1.5 min", "1h", "30", "500us"].map(parseDuration)).toEqual([0.25, 2, 90, 3600, 30, 0.0005]);
    expect(parseHuman("param.segsize", "128k")).toBe(131072);
    expect(parseHuman("label.segsize", "128k")).toBeNull();
    expect(parseHuman("k", "3")).toBeNull();
  });

  it("finds the stored value a typed one means", () => {
    const stored = ["65536", "131072", "30B"];
    // as typed, in any of its spellings, and free text kept
    expect(["131072", "128k", "128 KiB", "64K", "30B", "1M", "big"].map((t) => storedValue("segsize", t, stored))).toEqual([
      "131072",
      "131072",
      "131072",
      "65536",
      "30B",
      "1M",
      "big",
    ]);
    expect(storedValue("timeout", "250ms", ["0.25", "2"])).toBe("0.25");
    expect(storedValue("fs_version", "128k", ["131072"])).toBe("128k");
  });

  it("shows a typed filter value in its unit", () => {
    expect(["128k", "131072", "128 KiB", "big"].map((t) => humanTyped("segsize", t))).toEqual(["128 KiB", "128 KiB", "128 KiB", "big"]);
    expect(humanTyped("timeout", "250ms")).toBe("250 ms");
    expect(humanTyped("label.segsize", "128k")).toBe("128k");
  });
});

describe("parameters in tables", () => {
  it("writes sizes and durations as people do and keeps the stored values beside them", () => {
    const params = { segsize: 131072, filesize: 4194304, timeout: 0.25, count: 131072, sync: "file", list: [1, 2], none: null };
    const { text, raw } = formatParams(params);
    expect(text).toBe("segsize=128 KiB filesize=4 MiB timeout=250 ms count=131072 sync=file list=[1,2] none=–");
    expect(raw).toBe("segsize=131072 filesize=4194304 timeout=0.25 count=131072 sync=file list=[1,2] none=–");
    // Nothing written differently: no second form.
    expect(formatParams(params).pairs[0]).toBe("segsize=128 KiB");
    expect(formatParams({ threads: 8, sync: "none" })).toMatchObject({ text: "threads=8 sync=none", raw: null });
    expect(formatParams({ size: "30B" })).toMatchObject({ text: "size=30B", raw: null });
    expect(paramText("segsize", 1048576)).toBe("1 MiB");
    expect(paramText("label.segsize", 1048576)).toBe("1048576");
  });
});
