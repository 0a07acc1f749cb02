import { Link, useSearchParams } from "react-router-dom";
import { Empty, QueryView } from "../../components/ui/States";
import { useJobs } from "../../features/jobs/api/get-jobs";
import { JobsFilters } from "../../features/jobs/components/JobsFilters";
import { JobsTable } from "../../features/jobs/components/JobsTable";
import { isActive } from "../../features/jobs/progress";
import { jobsQuery, jobsSearch, parseJobsState, type JobsState } from "../../features/jobs/url-state";
import { searchNow } from "../../lib/search-now";
import { paths } from "../../lib/paths";

export function Jobs() {
  const [params, setParams] = useSearchParams();
  const state = parseJobsState(params);
  const jobs = useJobs(jobsQuery(state));
  const go = (patch: Partial<JobsState>) => setParams(jobsSearch({ ...parseJobsState(searchNow()), cursor: "", ...patch }));
  const live = jobs.data?.items.some((j) => isActive(j.status));
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Jobs</h1>
          <p className="muted">What the agents were asked to run, newest first{live ? "; updating every 2 s while jobs are queued or running" : ""}.</p>
        </div>
        <div className="actions">
          <Link className="button" to={paths.schedules()}>
            Schedules
          </Link>
        </div>
      </div>
      <JobsFilters state={state} onChange={go} />
      <section className="card">
        <QueryView query={jobs} what="jobs">
          {(page) =>
            page.items.length === 0 ? (
              <Empty title={state.status || state.agent || state.schedule ? "No job matches these filters." : "No jobs yet."}>
                <p className="state-body">
                  Jobs come from <Link to={paths.schedules()}>schedules</Link>: each firing queues one per matching agent.
                </p>
              </Empty>
            ) : (
              <>
                <JobsTable jobs={page.items} />
                <div className="pager">
                  {state.cursor && (
                    <button type="button" className="button small" onClick={() => go({ cursor: "" })}>
                      ← Newest
                    </button>
                  )}
                  {page.next_cursor && (
                    <button type="button" className="button small" onClick={() => go({ cursor: page.next_cursor ?? "" })}>
                      Older →
                    </button>
                  )}
                </div>
              </>
            )
          }
        </QueryView>
      </section>
    </div>
  );
}
