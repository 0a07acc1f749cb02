import { Link } from "react-router-dom";
import { CursorPager, useCursorStack } from "../../../components/ui/CursorPager";
import { Empty, QueryView } from "../../../components/ui/States";
import { formatInZone, relativeTime, userTimeZone } from "../../../lib/time";
import { JobStatusBadge } from "../../jobs";
import { useFirings } from "../api/get-schedules";
import { paths } from "../../../lib/paths";

/** The schedule's firings, newest first, each with its jobs (agent, status, percent) linked. */
export function Firings({ scheduleId }: { scheduleId: number }) {
  const pages = useCursorStack();
  const firings = useFirings(scheduleId, pages.cursor);
  const zone = userTimeZone();
  return (
    <QueryView query={firings} what="the firings">
      {(page) =>
        page.items.length === 0 ? (
          <Empty title="It has not fired yet." />
        ) : (
          <>
            <table className="table" data-testid="firings-table">
              <thead>
                <tr>
                  <th>fired at ({zone})</th>
                  <th>jobs</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((f) => (
                  <tr key={f.fire_at}>
                    <td className="nowrap">
                      {formatInZone(f.fire_at, zone)} <div className="muted small">{relativeTime(f.fire_at)}</div>
                    </td>
                    <td>
                      {f.jobs.length === 0 && <span className="muted">no agent matched</span>}
                      <ul className="firing-jobs">
                        {f.jobs.map((j) => (
                          <li key={j.id}>
                            <Link to={paths.job(j.id)}>#{j.id}</Link> {j.agent} <JobStatusBadge status={j.status} />
                            {j.percent !== null && j.status === "running" && <span className="muted small"> {Math.round(j.percent)} %</span>}
                          </li>
                        ))}
                      </ul>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <CursorPager stack={pages} next={page.next_cursor} />
          </>
        )
      }
    </QueryView>
  );
}
