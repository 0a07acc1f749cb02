import { Link } from "react-router-dom";
import { plural } from "../../../lib/format";
import { formatInZone, relativeTime, userTimeZone } from "../../../lib/time";
import { JobStatusBadge } from "../../jobs";
import type { Schedule } from "../api/get-schedules";
import { describeWhen } from "../cron";
import { describeSelector } from "../selector";
import { ScheduleActions } from "./ScheduleActions";
import { paths } from "../../../lib/paths";

/** A firing's jobs by status: "2 running · 1 queued". */
export function JobCounts({ jobs }: { jobs: Record<string, number> }) {
  const entries = Object.entries(jobs).filter(([, n]) => n > 0);
  if (entries.length === 0) return <span className="muted">no jobs</span>;
  return (
    <span className="badges">
      {entries.map(([status, n]) => (
        <span key={status} title={`${n} ${status}`}>
          <JobStatusBadge status={status} /> <span className="count-of">×{n}</span>{" "}
        </span>
      ))}
    </span>
  );
}

export function NextFiring({ schedule, zone }: { schedule: Pick<Schedule, "next_fire_at" | "paused">; zone: string }) {
  if (!schedule.next_fire_at) return <span className="muted">none (fired)</span>;
  if (schedule.paused) {
    return <span>none while paused</span>;
  }
  return (
    <span>
      {formatInZone(schedule.next_fire_at, zone)} <span className="muted small">({relativeTime(schedule.next_fire_at)})</span>
    </span>
  );
}

export function SchedulesTable({ schedules }: { schedules: Schedule[] }) {
  const zone = userTimeZone();
  return (
    <table className="table" data-testid="schedules-table">
      <thead>
        <tr>
          <th>name</th>
          <th>workload</th>
          <th>agents</th>
          <th>when</th>
          <th>next firing ({zone})</th>
          <th>last firing</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {schedules.map((s) => (
          <tr key={s.id} data-schedule={s.name}>
            <td>
              <Link to={paths.schedule(s.id)} className="strong">
                {s.name}
              </Link>
              {s.paused && <span className="badge warn">paused</span>}
            </td>
            <td className="mono small">
              {s.spec.workload}
              <div className="muted">{plural(s.runs_per_agent, "run")} per agent</div>
            </td>
            <td>
              <span className="mono small">{describeSelector(s.agents)}</span>
              <div className={s.matching_agents.length === 0 ? "error-text small" : "muted small"}>
                {s.matching_agents.length === 0 ? "matches no enrolled agent" : `matches ${s.matching_agents.join(", ")}`}
              </div>
            </td>
            <td>{describeWhen(s.when, s.timezone)}</td>
            <td>
              <NextFiring schedule={s} zone={zone} />
            </td>
            <td>
              {s.last_firing ? (
                <>
                  <div className="small muted">{formatInZone(s.last_firing.fire_at, zone)}</div>
                  <Link to={paths.jobs({ schedule: s.id })} className="plain">
                    <JobCounts jobs={s.last_firing.jobs} />
                  </Link>
                </>
              ) : (
                <span className="muted">never</span>
              )}
            </td>
            <td className="nowrap">
              <ScheduleActions schedule={s} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
