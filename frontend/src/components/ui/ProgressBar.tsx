/** A progress bar with its percent; no percent known draws an empty, striped bar. */
export function ProgressBar({ percent, tone = "active", label }: { percent: number | null; tone?: "active" | "done" | "failed" | "idle"; label?: string }) {
  const shown = percent === null ? null : Math.round(percent);
  return (
    <div className="progress" title={label}>
      <div
        className={`progress-track ${tone}${percent === null ? " unknown" : ""}`}
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={shown ?? undefined}
        aria-label={label ?? "progress"}
      >
        <div className="progress-fill" style={{ width: `${percent ?? 0}%` }} />
      </div>
      <span className="progress-pct">{shown === null ? "–" : `${shown} %`}</span>
    </div>
  );
}
