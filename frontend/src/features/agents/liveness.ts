// An agent's state as the Agents page shows it: enrolled daemons are online or offline by their
// heartbeat (the server says which: within 45 s); others only ever uploaded runs.
import type { Schemas } from "../../api/client";
import { relativeTime } from "../../lib/time";

export type Agent = Schemas["AgentRead"];
export type AgentState = "online" | "offline" | "revoked" | "uploads only";

export function agentState(agent: Pick<Agent, "enrolled" | "revoked" | "online">): AgentState {
  if (agent.revoked) return "revoked";
  if (!agent.enrolled) return "uploads only";
  return agent.online ? "online" : "offline";
}

export function heartbeatText(agent: Pick<Agent, "enrolled" | "heartbeat_at">, now: number = Date.now()): string {
  if (!agent.enrolled) return "not enrolled";
  if (!agent.heartbeat_at) return "no heartbeat yet";
  return `last heartbeat ${relativeTime(agent.heartbeat_at, now)}`;
}

/** The command that enrolls a test machine with this token against this server. */
export function enrollCommand(origin: string, token: string): string {
  return `perfatlas-agent enroll --server ${origin} --enrollment-token ${token}`;
}

/** `k=v` pairs separated by commas or spaces; the error names the first bad one. */
export function parseLabelPairs(text: string): Record<string, string> | string {
  const labels: Record<string, string> = {};
  for (const pair of text.split(/[,\s]+/).filter(Boolean)) {
    const eq = pair.indexOf("=");
    if (eq <= 0) return `“${pair}” is not name=value`;
    labels[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return labels;
}

/** When the agent was last heard from: an upload or (enrolled) a heartbeat, whichever is newer. */
export function lastSeen(agent: Pick<Agent, "last_seen_at" | "heartbeat_at">): string | null {
  const times = [agent.last_seen_at, agent.heartbeat_at].filter((t): t is string => Boolean(t));
  if (times.length === 0) return null;
  return times.reduce((a, b) => (new Date(b).getTime() > new Date(a).getTime() ? b : a));
}
