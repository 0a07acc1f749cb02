import type { AlertDetail } from "../api/get-alert";
import { isLikelyCause } from "../format";
import { formatValue } from "../../../lib/format";

const GROUPS = ["labels", "environment", "parameters", "durability"] as const;

/** Everything that differs between the run before the change and the one after it; the keys
 * the detector names as the cause come first, highlighted. */
export function DifferencesTable({ alert }: { alert: AlertDetail }) {
  const rows = GROUPS.flatMap((group) =>
    Object.entries(alert.differences[group]).map(([key, change]) => ({ group, key, change, likely: isLikelyCause(alert.cause, group, key) })),
  ).sort((a, b) => Number(b.likely) - Number(a.likely));
  if (rows.length === 0)
    return (
      <p className="muted" data-testid="differences-none">
        The runs either side of the change had the same environment, parameters, labels and durability settings.
      </p>
    );
  return (
    <table className="table differences" data-testid="differences-table">
      <thead>
        <tr>
          <th>what</th>
          <th>run before</th>
          <th>run after</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ group, key, change, likely }) => (
          <tr key={`${group}.${key}`} className={likely ? "likely-cause" : undefined} data-likely={likely ? "1" : undefined}>
            <td className="mono">
              {key} <span className="muted small">({group})</span>
              {likely && <span className="badge cause">likely cause</span>}
            </td>
            <td className="mono">{formatValue(change.before)}</td>
            <td className="mono strong">{formatValue(change.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
