import type { Run } from "../api/get-run";
import { KeyValues } from "./KeyValues";

/** The few environment facts people look for; the rest folds away below. */
const KEY_ENVIRONMENT = ["hostname", "kernel", "os", "cpu_model", "cores", "fs_type", "device", "device_model", "rotational", "mount_options"];

export function RunEnvironment({ run }: { run: Run }) {
  const env = run.environment;
  return (
    <section className="card">
      <h2>Environment</h2>
      {env ? (
        <>
          <KeyValues data={Object.fromEntries(KEY_ENVIRONMENT.filter((k) => k in env.data).map((k) => [k, env.data[k]]))} empty="none of the usual facts" />
          <details data-testid="raw-environment">
            <summary>Everything the agent recorded ({Object.keys(env.data).length} keys)</summary>
            <KeyValues data={env.data} empty="empty" />
          </details>
        </>
      ) : (
        <p className="muted">The agent recorded no environment.</p>
      )}
    </section>
  );
}

/** Everything else the agent sent, folded away. */
export function RunMeta({ run }: { run: Run }) {
  return (
    <section className="card">
      <details data-testid="raw-meta">
        <summary>Raw meta: repetitions, load and pressure snapshots, tool output ({Object.keys(run.meta).length} keys)</summary>
        <KeyValues data={run.meta} empty="none" />
      </details>
    </section>
  );
}
