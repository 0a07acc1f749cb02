import { describe, expect, it } from "vitest";
import { attachmentKind, downloadName, formatBytes, runExportUrl, shortSha } from "./attachments";

describe("formatBytes", () => {
  it("uses binary units with one decimal below 10", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(1024)).toBe("1.0 KiB");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(70_000)).toBe("68 KiB");
    expect(formatBytes(1024 * 1024)).toBe("1.0 MiB");
    expect(formatBytes(4 * 1024 * 1024 - 1)).toBe("4.0 MiB");
    expect(formatBytes(3 * 1024 ** 3)).toBe("3.0 GiB");
    expect(formatBytes(-1)).toBe("");
    expect(formatBytes(Number.NaN)).toBe("");
  });
});

describe("names", () => {
  it("shortens a sha256 to its first 12 characters", () => {
    const sha = "016e2e1ff8b9ecfff8e007a5049b71ddd8949356d004397dc8712f9a301df083";
    expect(shortSha(sha)).toBe("016e2e1ff8b9");
    expect(shortSha(sha, 7)).toBe("016e2e1");
  });

  it("says what the agent's files are", () => {
    expect(attachmentKind("script-bench.sh")).toBe("script");
    expect(attachmentKind("latencies.csv")).toBe("raw per-operation latencies");
    expect(attachmentKind("stderr.txt")).toBe("tool output (tail)");
    expect(attachmentKind("command.txt")).toBe("command line and checksums");
    expect(attachmentKind("notes.md")).toBe("");
  });

  it("exports the whole run from the API", () => {
    expect(runExportUrl("a64b8204-80b7-48a2-91aa-cc172c30e006")).toBe("/api/v1/runs/a64b8204-80b7-48a2-91aa-cc172c30e006/export");
  });

  it("saves downloads under the run's short uuid", () => {
    expect(downloadName("a64b8204-80b7-48a2-91aa-cc172c30e006", "latencies.csv")).toBe("a64b8204-latencies.csv");
  });
});
