import { describe, expect, it } from "vitest";
import { choicesOf, commaCompletions, valueChoices } from "./choices";

describe("choices", () => {
  it("lists names once, in natural order, without the empty one", () => {
    expect(choicesOf(["lab-10", "lab-2", "", "lab-2", "lab-1"]).map((c) => c.value)).toEqual(["lab-1", "lab-2", "lab-10"]);
  });

  it("labels sizes and durations in their units and nothing else", () => {
    expect(valueChoices("segsize", ["65536", "131072", "30B"])).toEqual([
      { value: "65536", label: "64 KiB" },
      { value: "131072", label: "128 KiB" },
      { value: "30B" },
    ]);
    expect(valueChoices("param.timeout", ["0.25"])).toEqual([{ value: "0.25", label: "250 ms" }]);
    // a label of a size's name is free text, and so is a count
    expect(valueChoices("label.segsize", ["131072"])).toEqual([{ value: "131072" }]);
    expect(valueChoices("k", ["131072"])).toEqual([{ value: "131072" }]);
  });

  it("completes the last item of a comma-separated list", () => {
    const offered = [
      { value: "4096", label: "4 KiB" },
      { value: "131072", label: "128 KiB" },
    ];
    expect(commaCompletions("", offered)).toEqual(offered);
    expect(commaCompletions("13", offered).map((c) => c.value)).toEqual(["4096", "131072"]);
    expect(commaCompletions("4096, 13", offered)).toEqual([{ value: "4096, 131072", label: "128 KiB" }]);
    expect(commaCompletions("1k,4096,", offered).map((c) => c.value)).toEqual(["1k, 4096, 131072"]);
  });
});
