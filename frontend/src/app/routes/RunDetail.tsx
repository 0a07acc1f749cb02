import { useParams } from "react-router-dom";
import { QueryView } from "../../components/ui/States";
import { useRun } from "../../features/runs/api/get-run";
import { RunAttachments } from "../../features/runs/components/RunAttachments";
import { RunEnvironment, RunMeta } from "../../features/runs/components/RunEnvironment";
import { RunFacts } from "../../features/runs/components/RunFacts";
import { ReferenceBanner } from "../../features/runs/components/ReferenceBanner";
import { RunHeader } from "../../features/runs/components/RunHeader";
import { RunResults } from "../../features/runs/components/RunResults";
import { TrustNotes } from "../../features/runs/components/TrustNotes";

export function RunDetail() {
  const { uuid = "" } = useParams();
  const run = useRun(uuid);
  return (
    <div className="page">
      <QueryView query={run} what={`run ${uuid}`}>
        {(r) => (
          <>
            <RunHeader run={r} />
            <ReferenceBanner run={r} />
            <TrustNotes run={r} />
            <RunFacts run={r} />
            <section className="card">
              <h2>Results</h2>
              <RunResults run={r} />
            </section>
            <RunAttachments run={r} />
            <RunEnvironment run={r} />
            <RunMeta run={r} />
          </>
        )}
      </QueryView>
    </div>
  );
}
