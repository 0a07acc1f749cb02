import { describe, expect, it } from "vitest";
import { agentState, enrollCommand, heartbeatText, lastSeen, parseLabelPairs } from "./liveness";

describe("agent state", () => {
  it("is revoked first, then uploads only, then online or offline", () => {
    expect(agentState({ enrolled: true, revoked: true, online: true })).toBe("revoked");
    expect(agentState({ enrolled: false, revoked: false, online: false })).toBe("uploads only");
    expect(agentState({ enrolled: true, revoked: false, online: true })).toBe("online");
    expect(agentState({ enrolled: true, revoked: false, online: false })).toBe("offline");
  });

  it("says how long ago the last heartbeat came", () => {
    const now = Date.parse("2026-11-23T12:00:00Z");
    expect(heartbeatText({ enrolled: true, heartbeat_at: "2026-11-23T11:59:48Z" }, now)).toBe("last heartbeat 12 s ago");
    expect(heartbeatText({ enrolled: true, heartbeat_at: null }, now)).toBe("no heartbeat yet");
    expect(heartbeatText({ enrolled: false, heartbeat_at: null }, now)).toBe("not enrolled");
  });
});

describe("enrollment", () => {
  it("writes the enroll command for this server", () => {
    expect(enrollCommand("https://perf.example.com", "pae_abc")).toBe("perfatlas-agent enroll --server https://perf.example.com --enrollment-token pae_abc");
  });

  it("reads labels as k=v pairs", () => {
    expect(parseLabelPairs("role=nightly, disk=nvme")).toEqual({ role: "nightly", disk: "nvme" });
    expect(parseLabelPairs("")).toEqual({});
    expect(parseLabelPairs("role")).toBe("“role” is not name=value");
  });
});

describe("lastSeen", () => {
  it("is the newer of the last upload and the last heartbeat", () => {
    expect(lastSeen({ last_seen_at: null, heartbeat_at: "2026-11-23T11:00:00Z" })).toBe("2026-11-23T11:00:00Z");
    expect(lastSeen({ last_seen_at: "2026-11-23T12:00:00+00:00", heartbeat_at: "2026-11-23T11:00:00Z" })).toBe("2026-11-23T12:00:00+00:00");
    expect(lastSeen({ last_seen_at: null, heartbeat_at: null })).toBeNull();
  });
});
