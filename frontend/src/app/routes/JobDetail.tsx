import { useParams } from "react-router-dom";
import { QueryView } from "../../components/ui/States";
import { useJob } from "../../features/jobs/api/get-job";
import { JobFacts, JobHeader, JobLive, JobRuns } from "../../features/jobs/components/JobDetail";

export function JobDetail() {
  const id = Number(useParams().id);
  const job = useJob(id);
  return (
    <div className="page">
      <QueryView query={job} what={`job ${id}`}>
        {(j) => (
          <>
            <JobHeader job={j} />
            <div className="grid-2">
              <section className="card">
                <h2>Progress</h2>
                <JobLive job={j} />
              </section>
              <div className="stack">
                <section className="card">
                  <h2>Job</h2>
                  <JobFacts job={j} />
                </section>
                <section className="card">
                  <h2>Runs ({j.runs.length})</h2>
                  <JobRuns job={j} />
                </section>
              </div>
            </div>
          </>
        )}
      </QueryView>
    </div>
  );
}
