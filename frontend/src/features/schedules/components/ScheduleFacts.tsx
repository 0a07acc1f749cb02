import { formatPairs } from "../../../lib/format";
import { formatInZone, userTimeZone } from "../../../lib/time";
import type { Schedule } from "../api/get-schedules";
import { describeWhen } from "../cron";
import { describeSelector } from "../selector";
import { NextFiring } from "./SchedulesTable";

export function ScheduleFacts({ schedule: s }: { schedule: Schedule }) {
  const zone = userTimeZone();
  const params = Object.fromEntries(Object.entries(s.spec.params ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : v]));
  return (
    <dl className="kv" data-testid="schedule-facts">
      <div>
        <dt>when</dt>
        <dd>{describeWhen(s.when, s.timezone)}</dd>
      </div>
      <div>
        <dt>next firing ({zone})</dt>
        <dd>
          <NextFiring schedule={s} zone={zone} />
        </dd>
      </div>
      <div>
        <dt>last fired</dt>
        <dd>{s.last_fired_at ? formatInZone(s.last_fired_at, zone) : "never"}</dd>
      </div>
      <div>
        <dt>agents</dt>
        <dd>
          <span className="mono">{describeSelector(s.agents)}</span>
        </dd>
      </div>
      <div>
        <dt>matching now</dt>
        <dd className={s.matching_agents.length === 0 ? "error-text" : undefined}>{s.matching_agents.join(", ") || "no enrolled agent"}</dd>
      </div>
      <div>
        <dt>workload</dt>
        <dd className="mono">{s.spec.workload}</dd>
      </div>
      <div>
        <dt>targets</dt>
        <dd className="mono">{s.spec.targets.join(", ")}</dd>
      </div>
      <div>
        <dt>parameters</dt>
        <dd className="mono">{formatPairs(params) || "–"}</dd>
      </div>
      <div>
        <dt>runs per agent</dt>
        <dd>
          {s.runs_per_agent} × {s.spec.repetitions} repetitions (min {s.spec.min_seconds} s per sample)
        </dd>
      </div>
      <div>
        <dt>labels</dt>
        <dd className="mono">{formatPairs(s.spec.labels ?? {}) || "–"}</dd>
      </div>
    </dl>
  );
}
