import type { Catalog } from "../catalog";

type Props = {
  catalog: Catalog | undefined;
  workload: string;
  metric: string;
  onWorkload: (workload: string) => void;
  onMetric: (metric: string) => void;
  /** data-testid of the two selects ("workload", "metric") */
  testIds?: boolean;
  /** group=metric picks several metrics elsewhere */
  hideMetric?: boolean;
};

/** The workload and metric pickers; a value from the URL that the catalog does not know stays selectable. */
export function WorkloadMetricFields({ catalog, workload, metric, onWorkload, onMetric, testIds = false, hideMetric = false }: Props) {
  return (
    <>
      <label className="field">
        <span>workload</span>
        <select data-testid={testIds ? "workload" : undefined} value={workload} onChange={(e) => onWorkload(e.target.value)}>
          <option value="">choose…</option>
          {(catalog?.workloads ?? []).map((w) => (
            <option key={w} value={w}>
              {w}
            </option>
          ))}
          {workload && !catalog?.workloads.includes(workload) && <option value={workload}>{workload}</option>}
        </select>
      </label>
      {!hideMetric && (
        <label className="field">
          <span>metric</span>
          <select data-testid={testIds ? "metric" : undefined} value={metric} disabled={!workload} onChange={(e) => onMetric(e.target.value)}>
            <option value="">choose…</option>
            {(catalog?.metrics ?? []).map((m) => (
              <option key={m.name} value={m.name}>
                {m.name} ({m.unit})
              </option>
            ))}
            {metric && !catalog?.metrics.some((m) => m.name === metric) && <option value={metric}>{metric}</option>}
          </select>
        </label>
      )}
    </>
  );
}
