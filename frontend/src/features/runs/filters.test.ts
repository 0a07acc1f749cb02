import { describe, expect, it } from "vitest";
import { filterKind } from "./filters";

describe("filterKind", () => {
  it("takes a prefix as said, and a bare name as the parameter when the workload has one", () => {
    expect(filterKind("label.segsize", ["segsize"])).toEqual(["label", "segsize"]);
    expect(filterKind("param.version", [])).toEqual(["param", "version"]);
    expect(filterKind("segsize", ["segsize", "k"])).toEqual(["param", "segsize"]);
    expect(filterKind("fs_version", ["segsize"])).toEqual(["label", "fs_version"]);
  });
});
