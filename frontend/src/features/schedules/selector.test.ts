import { describe, expect, it } from "vitest";
import { describeSelector, parseSelectorItem, selectorSuggestions } from "./selector";

describe("parseSelectorItem", () => {
  it("reads a name or a label=value, trimmed", () => {
    expect(parseSelectorItem(" lab-1 ")).toEqual({ kind: "name", name: "lab-1" });
    expect(parseSelectorItem("role=nightly")).toEqual({ kind: "label", key: "role", value: "nightly" });
    expect(parseSelectorItem("disk = nvme")).toEqual({ kind: "label", key: "disk", value: "nvme" });
    // the value may itself hold "=" and may be empty
    expect(parseSelectorItem("opts=a=b")).toEqual({ kind: "label", key: "opts", value: "a=b" });
    expect(parseSelectorItem("flag=")).toEqual({ kind: "label", key: "flag", value: "" });
  });

  it("says what is wrong with a bad item", () => {
    expect(parseSelectorItem("   ")).toBe("empty");
    expect(parseSelectorItem("1role=x")).toMatch(/not a label name/);
    expect(parseSelectorItem("=x")).toMatch(/not a label name/);
    expect(parseSelectorItem("x".repeat(129))).toMatch(/128/);
  });
});

describe("describeSelector", () => {
  it("says names or'ed and labels and'ed", () => {
    expect(describeSelector(["lab-1"])).toBe("lab-1");
    expect(describeSelector(["lab-1", "lab-2"])).toBe("lab-1 or lab-2");
    expect(describeSelector(["role=nightly", "disk=nvme"])).toBe("agents with role=nightly and disk=nvme");
    expect(describeSelector(["lab-1", "role=nightly"])).toBe("lab-1 with role=nightly");
  });
});

describe("selectorSuggestions", () => {
  it("offers enrolled, unrevoked agents' names and their label pairs, once each", () => {
    const agents = [
      { name: "b-host", labels: { role: "nightly", disk: "nvme" }, enrolled: true, revoked: false },
      { name: "a-host", labels: { role: "nightly" }, enrolled: true, revoked: false },
      { name: "gone", labels: { role: "old" }, enrolled: true, revoked: true },
      { name: "uploader", labels: { x: "y" }, enrolled: false, revoked: false },
    ];
    expect(selectorSuggestions(agents)).toEqual(["a-host", "b-host", "disk=nvme", "role=nightly"]);
  });
});
