import { describe, expect, it } from "vitest";
import { ApiError, apiUrl, toSearch } from "./client";

describe("API client", () => {
  it("repeats array parameters and drops empty ones", () => {
    expect(toSearch({ workload: "w", filter: ["a:1", "b:2"], group: "", x: undefined, samples: true })).toBe(
      "?workload=w&filter=a%3A1&filter=b%3A2&samples=true",
    );
    expect(apiUrl("/runs")).toBe("/api/v1/runs");
  });

  it("knows when a token is the way out", () => {
    expect(new ApiError(401, "no").needsToken).toBe(true);
    expect(new ApiError(422, "bad").needsToken).toBe(false);
  });
});
