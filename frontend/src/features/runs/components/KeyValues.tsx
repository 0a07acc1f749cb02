import { formatValue } from "../../../lib/format";
import { paramText } from "../../../lib/units";

/** Nested objects as dotted keys: {a: {b: 1}} → [["a.b", "1"]]. */
function flatten(data: unknown, prefix = ""): [string, string][] {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return [[prefix, formatValue(data)]];
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) out.push(...flatten(v, prefix ? `${prefix}.${k}` : k));
  return out;
}

/** `params`: the data are a run's parameters, sizes and durations shown as people write them
 * (128 KiB), the stored value on hover. */
export function KeyValues({ data, empty, params = false }: { data: Record<string, unknown>; empty: string; params?: boolean }) {
  const rows = Object.keys(data).length === 0 ? [] : flatten(data);
  if (rows.length === 0) return <p className="muted">{empty}</p>;
  return (
    <dl className="kv">
      {rows.map(([k, v]) => {
        const human = params && !k.includes(".") ? paramText(k, data[k]) : v;
        return (
          <div key={k}>
            <dt>{k}</dt>
            <dd className="mono" title={human !== v ? `as stored: ${v}` : undefined}>
              {human}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
