import { describe, expect, it } from "vitest";
import { referenceSource } from "./reference";

const SOURCE = "http://codawiki.cse.chalmers.se/Small_file_performance.html";

describe("referenceSource", () => {
  it("is null for a measured run, whatever its meta says", () => {
    expect(referenceSource({ reference: false, meta: { source_url: SOURCE } })).toBeNull();
  });

  it("names the source's host and keeps what the table said", () => {
    const source = referenceSource({
      reference: true,
      meta: { source_url: SOURCE, title: "Small file performance", description: "real seconds of time", column: "NFS", note: "" },
    });
    expect(source).toEqual({
      url: SOURCE,
      host: "codawiki.cse.chalmers.se",
      title: "Small file performance",
      description: "real seconds of time",
      note: null,
      column: "NFS",
    });
  });

  it("never links what is not an http(s) URL", () => {
    const source = referenceSource({ reference: true, meta: { source_url: "javascript:alert(1)" } });
    expect(source?.url).toBe("");
    expect(source?.host).toBe("javascript:alert(1)");
    expect(referenceSource({ reference: true, meta: {} })?.host).toBe("an unnamed source");
  });
});
