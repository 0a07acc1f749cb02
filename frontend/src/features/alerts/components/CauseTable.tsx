import type { Change } from "../api/get-alert";
import { causeKey } from "../format";
import { formatValue } from "../../../lib/format";

/** What changed with a step (the detector's cause), key by key. */
export function CauseTable({ cause }: { cause: Record<string, Change> | null }) {
  if (!cause || Object.keys(cause).length === 0)
    return <p className="muted">No environment or label changed with this step: look at the code or data under test.</p>;
  return (
    <table className="table differences" data-testid="cause-table">
      <thead>
        <tr>
          <th>what changed</th>
          <th>before</th>
          <th>after</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(cause).map(([key, change]) => (
          <tr key={key}>
            <td className="mono" title={key}>
              {causeKey(key)} <span className="muted small">({key.split(".")[0]})</span>
            </td>
            <td className="mono">{formatValue(change.before)}</td>
            <td className="mono strong">{formatValue(change.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
