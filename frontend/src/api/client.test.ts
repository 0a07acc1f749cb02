import { describe, expect, it } from "vitest";
import { ApiError, apiUrl, toSearch, type ApiBody, type ApiQuery } from "./client";

describe("API client", () => {
  it("repeats array parameters and drops empty ones", () => {
    expect(toSearch({ workload: "w", filter: ["a:1", "b:2"], group: "", x: undefined, samples: true })).toBe(
      "?workload=w&filter=a%3A1&filter=b%3A2&samples=true",
    );
    expect(apiUrl("/runs")).toBe("/api/v1/runs");
  });

  it("fills a route's path parameters, encoded, and adds its query", () => {
    expect(apiUrl("/reports/{slug}/blocks/{index}.csv", { path: { slug: "a b", index: 2 } })).toBe("/api/v1/reports/a%20b/blocks/2.csv");
    const query: ApiQuery<"/alerts"> = { status: ["open", "expected"], series_id: 7, label: [] };
    expect(apiUrl("/alerts", { query })).toBe("/api/v1/alerts?status=open&status=expected&series_id=7");
    expect(apiUrl("/series/{series_id}/change-points", { path: { series_id: 42 }, query: { points: 10000 } })).toBe(
      "/api/v1/series/42/change-points?points=10000",
    );
  });

  it("types requests by the OpenAPI document", () => {
    // @ts-expect-error: a route the API does not have
    expect(() => apiUrl("/nowhere")).not.toThrow();
    // @ts-expect-error: a query parameter the route does not take
    expect(apiUrl("/runs", { query: { colour: "red" } })).toBe("/api/v1/runs?colour=red");
    // @ts-expect-error: a path parameter missing
    expect(() => apiUrl("/runs/{run_uuid}", { path: {} })).toThrow("no value for {run_uuid}");
    // A PATCH body may leave out what the server lets be null; a POST body must have what it requires.
    const update: ApiBody<"/schedules/{schedule_id}", "patch"> = { paused: true };
    // @ts-expect-error: a report needs its slug and title
    const create: ApiBody<"/reports", "post"> = { title: "t" };
    expect([update, create]).toHaveLength(2);
  });

  it("knows when a token is the way out", () => {
    expect(new ApiError(401, "no").needsToken).toBe(true);
    expect(new ApiError(422, "bad").needsToken).toBe(false);
  });
});
