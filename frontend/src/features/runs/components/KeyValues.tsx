import { formatValue } from "../../../lib/format";

/** Nested objects as dotted keys: {a: {b: 1}} → [["a.b", "1"]]. */
function flatten(data: unknown, prefix = ""): [string, string][] {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return [[prefix, formatValue(data)]];
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) out.push(...flatten(v, prefix ? `${prefix}.${k}` : k));
  return out;
}

export function KeyValues({ data, empty }: { data: Record<string, unknown>; empty: string }) {
  const rows = Object.keys(data).length === 0 ? [] : flatten(data);
  if (rows.length === 0) return <p className="muted">{empty}</p>;
  return (
    <dl className="kv">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd className="mono">{v}</dd>
        </div>
      ))}
    </dl>
  );
}
