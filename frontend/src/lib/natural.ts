// The natural order of dimension values, as the server's backend/perfatlas/core/natural.py has
// it (their tests share the examples): versions by their parts (2.1.9 < 2.1.10 < 2.2.0-rc1 <
// 2.2.0, 6.1 < 6.10, 6.1.0-18-amd64 < 6.10.0-1-amd64), numbers as numbers, words that are not
// versions (trunk, main, latest) after them, null last.

type Part = [number, number | string, string?];
type Key = { rank: number; parts: Part[]; text: string; kind: number };

// A letter run that marks a pre-release sorts before the end of the version (2.2.0-rc1 < 2.2.0,
// while the build 2.2.0-1 comes after 2.2.0). dev < alpha < beta < pre < rc.
const PRE: Record<string, number> = { dev: 0, alpha: 1, a: 1, beta: 2, b: 2, pre: 3, preview: 3, rc: 4, c: 4 };
const END: Part = [1, 0];
// A number as JSON writes it: a fraction never ends in 0 unless it is `.0`, so 6.10 is a version.
const PLAIN_NUMBER = /^-?\d+(\.(\d*[1-9]|0))?([eE][-+]?\d+)?$/;

function parts(text: string): Part[] {
  const out: Part[] = [];
  for (const token of text.match(/\d+|[a-z]+/gi) ?? []) {
    if (/^\d+$/.test(token)) out.push([2, Number(token)]);
    else if (token.toLowerCase() in PRE && out.length > 0) out.push([0, PRE[token.toLowerCase()]!, token.toLowerCase()]);
    else out.push([3, token.toLowerCase()]);
  }
  out.push(END);
  return out;
}

export function isVersion(text: string): boolean {
  const body = /^[vV]\d/.test(text) ? text.slice(1) : text;
  return /^\d/.test(body);
}

/** value as a number if it is one as JSON writes numbers (not "6.10", not a boolean). */
export function plainNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" && PLAIN_NUMBER.test(value)) {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

function keyOf(value: unknown): Key {
  if (value === null || value === undefined) return { rank: 3, parts: [], text: "", kind: 0 };
  if (typeof value === "boolean") return { rank: 2, parts: [[3, String(value)]], text: String(value), kind: 0 };
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return { rank: 2, parts: [[3, String(value).toLowerCase()]], text: String(value), kind: 0 };
    return { rank: 0, parts: [[2, value], END], text: String(value), kind: 0 };
  }
  const text = String(value);
  if (isVersion(text)) return { rank: 0, parts: parts(/^[vV]/.test(text) ? text.slice(1) : text), text, kind: 1 };
  return { rank: 1, parts: parts(text), text, kind: 1 };
}

function plainCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePart(a: Part, b: Part): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  const [x, y] = [a[1], b[1]];
  if (typeof x === "number" && typeof y === "number" && x !== y) return x - y;
  if (x !== y) return String(x) < String(y) ? -1 : 1;
  return plainCompare(a[2] ?? "", b[2] ?? "");
}

/** The natural order of two values: a total order (distinct values never tie). */
export function naturalCompare(a: unknown, b: unknown): number {
  const [ka, kb] = [keyOf(a), keyOf(b)];
  if (ka.rank !== kb.rank) return ka.rank - kb.rank;
  const n = Math.min(ka.parts.length, kb.parts.length);
  for (let i = 0; i < n; i++) {
    const c = comparePart(ka.parts[i]!, kb.parts[i]!);
    if (c !== 0) return c;
  }
  return ka.parts.length - kb.parts.length || plainCompare(ka.text, kb.text) || ka.kind - kb.kind;
}

/** values in natural order; when every one is a plain number, as numbers (0.25 < 0.5). */
export function naturalSorted<T>(values: readonly T[], key: (v: T) => unknown = (v) => v): T[] {
  const numbers = values.map((v) => plainNumber(key(v)));
  const allNumbers = values.length > 0 && values.every((v, i) => numbers[i] !== null || key(v) === null || key(v) === undefined);
  const indexed = values.map((v, i) => ({ v, i }));
  indexed.sort((a, b) => {
    if (allNumbers) {
      const [x, y] = [numbers[a.i] ?? null, numbers[b.i] ?? null];
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
      } else if (x !== y) return x - y;
    }
    return naturalCompare(key(a.v), key(b.v)) || a.i - b.i;
  });
  return indexed.map((e) => e.v);
}

/** One order of every value the sequences hold that keeps each sequence's own order (each is
 * one trace's x values, in the order the server chose, natural or given): where they say
 * nothing, the natural order decides. The category axis's order, so that plotly neither
 * re-sorts the categories nor takes them in order of first appearance. */
export function mergedOrder<T extends string | number>(sequences: readonly (readonly T[])[]): T[] {
  const after = new Map<string, Set<string>>();
  const before = new Map<string, number>();
  const values = new Map<string, T>();
  for (const seq of sequences) {
    seq.forEach((v, i) => {
      const k = String(v);
      if (!values.has(k)) {
        values.set(k, v);
        after.set(k, new Set());
        before.set(k, 0);
      }
      if (i > 0) {
        const prev = String(seq[i - 1]);
        if (prev !== k && !after.get(prev)!.has(k)) {
          after.get(prev)!.add(k);
          before.set(k, before.get(k)! + 1);
        }
      }
    });
  }
  const out: T[] = [];
  const ready = () => naturalSorted([...before].filter(([, n]) => n === 0).map(([k]) => values.get(k)!));
  let next = ready();
  while (next.length > 0) {
    const v = next[0]!;
    const k = String(v);
    out.push(v);
    before.delete(k);
    for (const w of after.get(k) ?? []) if (before.has(w)) before.set(w, before.get(w)! - 1);
    next = ready();
  }
  // Sequences that disagree (a cycle) cannot all be kept: what is left goes in natural order.
  return [...out, ...naturalSorted([...before.keys()].map((k) => values.get(k)!))];
}
