// Why a group compare has nothing to show for a group: no runs with these filters, or runs whose
// series never meet the baseline's (they differ in more than the compared dimension). Said in
// words, with the keys that keep them apart, instead of an empty table or a bare "no series in
// both groups".
import type { GroupCompare } from "./group";

export type Unpaired = {
  value: string;
  /** "no runs with fs=ext4 where mount:sync", or "no series in both …: they differ in target" */
  reason: string;
  /** the pair_ignore that pairs them (the answer's own plus the separating keys), if any */
  pairIgnore: string[] | null;
};

type Key = Record<string, unknown>;

/** A pairing key as flat names: parameters and labels by their own names (the names pair_ignore takes). */
export function flatKey(key: Key): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(key)) {
    if (v && typeof v === "object") for (const [n, x] of Object.entries(v as Key)) out[n] = String(x);
    else out[k] = String(v);
  }
  return out;
}

/** The names whose values never meet between the two sides' series (absent counts as a value). */
export function separating(base: Key[], other: Key[]): string[] {
  const a = base.map(flatKey);
  const b = other.map(flatKey);
  const names = [...new Set([...a, ...b].flatMap((f) => Object.keys(f)))].sort();
  return names.filter((n) => {
    const left = new Set(a.map((f) => f[n] ?? "\u0000"));
    return b.every((f) => !left.has(f[n] ?? "\u0000"));
  });
}

function where(data: GroupCompare): string {
  return data.filters.length ? ` where ${data.filters.join(", ")}` : "";
}

/** Each group that has no cell to compare, and why (the baseline included when it has no runs). */
export function unpairedGroups(data: GroupCompare): Unpaired[] {
  const out: Unpaired[] = [];
  const base = data.groups[0];
  data.groups.forEach((g, i) => {
    const named = `${data.by}=${g.value}`;
    if (g.runs === 0) {
      out.push({ value: g.value, reason: `no runs with ${named}${where(data)}${i === 0 ? " (the baseline)" : ""}`, pairIgnore: null });
      return;
    }
    if (i === 0 || !base || base.runs === 0 || data.metrics.length === 0) return;
    if (data.metrics.some((m) => (m.cells[i]?.pairs ?? 0) > 0)) return;
    const onlyBase = data.metrics.flatMap((m) => m.pairs.filter((p) => p.cells[0] && !p.cells[i]).map((p) => p.key));
    const onlyHere = data.metrics.flatMap((m) => m.pairs.filter((p) => p.cells[i] && !p.cells[0]).map((p) => p.key));
    const keys = separating(onlyBase, onlyHere);
    const apart = keys.length ? `: their series differ in ${keys.join(", ")} as well as ${data.by}` : "";
    out.push({
      value: g.value,
      reason: `no series in both ${named} and the baseline ${data.by}=${base.value}${apart}`,
      pairIgnore: keys.length ? [...new Set([...data.pair_ignore, ...keys])] : null,
    });
  });
  return out;
}
