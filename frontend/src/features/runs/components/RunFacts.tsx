import { formatTime, formatValue } from "../../../lib/format";
import type { Run } from "../api/get-run";
import { DurabilityBadges } from "./DurabilityBadges";
import { KeyValues } from "./KeyValues";

/** Three cards: when and where the run ran, its durability and cache facts, its parameters and labels. */
export function RunFacts({ run: r }: { run: Run }) {
  return (
    <div className="grid-3">
      <section className="card">
        <h2>Run</h2>
        <dl className="kv">
          <div>
            <dt>target</dt>
            <dd className="mono">{r.target}</dd>
          </div>
          <div>
            <dt>started</dt>
            <dd>{formatTime(r.started_at)}</dd>
          </div>
          <div>
            <dt>finished</dt>
            <dd>{formatTime(r.finished_at)}</dd>
          </div>
          <div>
            <dt>status</dt>
            <dd>{r.status === "ok" ? "ok" : <span className="badge warn">{r.status}</span>}</dd>
          </div>
          {r.job_id !== null && (
            <div>
              <dt>job</dt>
              <dd>{r.job_id}</dd>
            </div>
          )}
        </dl>
      </section>
      <section className="card">
        <h2>Durability and cache</h2>
        <DurabilityBadges run={r} />
        <dl className="kv">
          <div>
            <dt>fsync policy</dt>
            <dd>{r.fsync_policy ?? "not recorded"}</dd>
          </div>
          <div>
            <dt>O_DIRECT</dt>
            <dd>{formatValue(r.o_direct)}</dd>
          </div>
          <div>
            <dt>sync mount</dt>
            <dd>{formatValue(r.sync_mount)}</dd>
          </div>
          <div>
            <dt>on memory</dt>
            <dd>{r.memory_backed === null ? "not recorded" : formatValue(r.memory_backed)}</dd>
          </div>
          <div>
            <dt>write cache</dt>
            <dd>{r.write_cache ?? "not recorded"}</dd>
          </div>
          <div>
            <dt>flushes reach the device</dt>
            <dd>{r.flush_to_device === null ? "not recorded" : formatValue(r.flush_to_device)}</dd>
          </div>
          <div>
            <dt>cold caches by</dt>
            <dd>{r.cold_method ?? "not recorded"}</dd>
          </div>
        </dl>
      </section>
      <section className="card">
        <h2>Parameters and labels</h2>
        <h3>parameters</h3>
        <KeyValues data={r.parameters} empty="none" params />
        <h3>labels</h3>
        <KeyValues data={r.labels} empty="none" />
      </section>
    </div>
  );
}
