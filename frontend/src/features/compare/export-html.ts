// The compare tables as static HTML (a report's offline file): the same words as the page, so
// an export keeps the interval, n, agreement, verdict and the split subsets, not "(−19 %)".
import { formatNumber, formatPercent, shortId } from "../../lib/format";
import type { Compare } from "./api/get-compare";
import { VERDICT_TEXT, changeText } from "./diff";
import { groupSummary, subsetSummary, type GroupCell, type GroupCompare } from "./group";

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** A cell of lines; the class names the verdict (better, worse, incomparable) for colour. */
function cell(lines: string[], verdict?: string | null): string {
  const tone = verdict === "better" || verdict === "worse" ? ` ${verdict}` : verdict === "not_comparable" ? " incomparable" : "";
  return `<td class="num${tone}">${lines.filter(Boolean).map(escape).join("<br>")}</td>`;
}

export function compareTableHtml(data: Compare): string {
  const head = `<tr><th>metric</th>${data.runs.map((r, i) => `<th class="num">${escape(`${shortId(r.uuid)} ${r.agent}`)}${i === 0 ? " (baseline)" : ""}</th>`).join("")}</tr>`;
  const rows = data.metrics.map((m) => {
    const cells = m.values.map((v, i) => {
      const change = m.changes[i];
      const n = m.n[i];
      const lines = [formatNumber(v, 4), n !== null && n !== undefined ? `n ${n}` : ""];
      if (change) lines.push(change.verdict === "not_comparable" ? "" : changeText(change), VERDICT_TEXT[change.verdict], change.reason ?? "");
      return cell(lines, change?.verdict);
    });
    return `<tr><th>${escape(`${m.metric} (${m.unit})`)}</th>${cells.join("")}</tr>`;
  });
  return `<table data-table="compare"><thead>${head}</thead><tbody>${rows.join("")}</tbody></table>`;
}

function groupLines(c: GroupCell, first: boolean, pooled: boolean): string[] {
  const lines = [`${pooled ? "pooled: " : ""}${formatNumber(c.value, 4)}`, `${c.series} series, n ${c.samples}`];
  if (first) return lines;
  lines.push(groupSummary(c));
  if (c.verdict && c.pairs > 0) lines.push(VERDICT_TEXT[c.verdict]);
  if (c.lowest_pct !== null && c.highest_pct !== null && c.pairs > 1) lines.push(`series from ${formatPercent(c.lowest_pct)} to ${formatPercent(c.highest_pct)}`);
  if (c.reason) lines.push(c.reason);
  return lines;
}

export function groupsTableHtml(data: GroupCompare): string {
  const head = `<tr><th>metric</th>${data.groups.map((g, i) => `<th class="num">${escape(`${data.by} = ${g.value}`)}${i === 0 ? " (baseline)" : ""}</th>`).join("")}</tr>`;
  const rows = data.metrics.flatMap((m) => {
    const name = `${m.metric} (${m.unit})`;
    const split = m.split;
    const pooled = (m.varying ?? []).length > 0;
    // Split: each subset first, as the page shows them; the pooled row after, named so.
    const subsets = (split?.subsets ?? []).map((s) => {
      const cells = s.cells.map((c, i) =>
        i === 0
          ? cell([formatNumber(c.value, 4), `${c.series} series, n ${c.samples}`])
          : cell([subsetSummary(split?.dimension ?? "", s.value, c), formatNumber(c.value, 4)], c.verdict),
      );
      return `<tr data-subset="${escape(s.value)}"><th>${escape(`${name}, ${split?.dimension ?? ""}=${s.value}`)}</th>${cells.join("")}</tr>`;
    });
    const cells = m.cells.map((c, i) => cell(groupLines(c, i === 0, pooled), i === 0 || split ? null : c.verdict));
    const title = split ? `${name}, every series pooled (the series disagree: split by ${split.dimension} above)` : name;
    return [...subsets, `<tr><th>${escape(title)}</th>${cells.join("")}</tr>`];
  });
  return `<table data-table="groups"><thead>${head}</thead><tbody>${rows.join("")}</tbody></table>`;
}
