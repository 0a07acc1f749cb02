import { relativeTime } from "../../../lib/time";
import { useReady } from "../api/get-ready";
import { problemsOf } from "../ready";

/** A banner on the Overview while the database, broker or worker is down, or the background
 * backlog is older than the server's bound (/ready). Nothing when all is well. */
export function ReadyBanner() {
  const ready = useReady();
  const problems = problemsOf(ready.data);
  if (problems.length === 0) return null;
  return (
    <div className="banner warn" role="status" data-testid="ready-banner">
      {problems.map((p) => (
        <p key={p.name}>
          <strong>{p.title}</strong>
          {p.since ? ` (since ${relativeTime(p.since)})` : ""}: {p.detail}.
        </p>
      ))}
    </div>
  );
}
