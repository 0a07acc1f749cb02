// A report as ONE self-contained HTML file that opens offline: plotly.js (the cartesian dist
// bundle, inlined), every block's figure and data, the notes and the tables. Nothing in it asks
// the network for anything: no script or style source, no image, no font.
import { formatNumber } from "../../lib/format";
import { humanValue } from "../../lib/units";
import { shortName, type Explore } from "../explore";
import type { BlockData, ReportData } from "./api/get-report-data";
import { blockFigure } from "./figures";
import { blockLabel, type Block } from "./blocks";
import { compareTableHtml, groupsTableHtml } from "./export-compare";
import { escapeHtml, renderMarkdown } from "./markdown";

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2933;max-width:1100px;margin:2rem auto;padding:0 1rem}
h1{margin-bottom:.2rem}.meta{color:#616e7c;font-size:.9em}.block{border:1px solid #e4e7eb;border-radius:8px;padding:1rem;margin:1rem 0}
table{border-collapse:collapse;margin:.5rem 0;font-variant-numeric:tabular-nums}th,td{border-bottom:1px solid #e4e7eb;padding:.25rem .6rem;text-align:left}
td.num,th.num{text-align:right}.better{color:#1a7f37}.worse{color:#b42318}.incomparable{color:#616e7c;font-style:italic}.muted{color:#616e7c;font-size:.9em}
pre{background:#f5f7fa;padding:.5rem;overflow:auto}blockquote{border-left:3px solid #cbd2d9;margin:0;padding-left:1rem;color:#52606d}
.plot{width:100%;height:460px}.banner{background:#fff4e5;border:1px solid #f0b35b;color:#7a4a00;border-radius:8px;padding:.6rem 1rem;margin:.5rem 0}
td .diff{font-weight:600}td .verdict,td .flags{font-size:.85em}.mixed{color:#8a5a00}details{margin:.3rem 0}th.key{font-weight:normal;font-size:.85em}.subset{font-weight:600}.subsets{margin-bottom:.3rem}`;

function cell(text: string, cls = ""): string {
  return `<td${cls ? ` class="${cls}"` : ""}>${escapeHtml(text)}</td>`;
}

export function exploreTableHtml(data: Explore): string {
  const head = `<tr><th>${escapeHtml(data.group ?? "group")}</th><th>${escapeHtml(data.x)}</th><th class="num">runs</th><th class="num">median</th><th class="num">p5</th><th class="num">p95</th><th>flags</th></tr>`;
  const rows = data.traces.flatMap((t) =>
    t.points.map(
      (p) =>
        `<tr>${cell(t.group === null ? "" : humanValue(data.group, t.group))}${cell(p.x === null ? "" : humanValue(data.x, p.x))}${cell(String(p.n), "num")}${cell(formatNumber(p.median, 4), "num")}${cell(formatNumber(p.p5, 4), "num")}${cell(formatNumber(p.p95, 4), "num")}${cell(p.flags.join(" "))}</tr>`,
    ),
  );
  return `<table data-table="explore"><thead>${head}</thead><tbody>${rows.join("")}</tbody></table>`;
}

/** What an explore answer split its lines by and what its points pool, as Explore's note says it. */
export function exploreMixHtml(data: Explore): string {
  const parts: string[] = [];
  if (data.split_by?.length)
    parts.push(`Split by ${data.split_by.map(shortName).join(", ")}: each line holds runs alike in ${data.split_by.length === 1 ? "it" : "them"}.`);
  for (const name of data.pooled ?? []) {
    const seen = new Set<string>();
    for (const t of data.traces) for (const v of t.mixes?.[name] ?? []) seen.add(v === null ? "not set" : humanValue(name, v));
    parts.push(`Mixes ${shortName(name)}: ${[...seen].join(", ")}.`);
  }
  return parts.length ? `<p class="muted mixes" data-mixes>${escapeHtml(parts.join(" "))}</p>` : "";
}

function blockHtml(block: Block, data: BlockData, figures: unknown[]): string {
  const caption = block.title || (block.kind === "markdown" ? "" : blockLabel(block));
  const parts = [caption ? `<h2>${escapeHtml(caption)}</h2>` : ""];
  const note = block.empty_note ? ` ${escapeHtml(block.empty_note)}` : "";
  if (data.error) parts.push(`<p class="muted">No data: ${escapeHtml(data.error)}.${note}</p>`);
  else if (block.kind === "markdown") parts.push(renderMarkdown(block.text));
  else {
    const figure = blockFigure(block, data, "light");
    if (figure && (!data.explore || data.explore.traces.length > 0)) {
      figures.push(figure);
      parts.push(`<div class="plot" id="plot-${figures.length - 1}" data-block="${data.index}"></div>`);
    }
    if (data.explore)
      parts.push(
        data.explore.traces.length
          ? exploreMixHtml(data.explore) + exploreTableHtml(data.explore)
          : `<p class="muted">No runs match${escapeHtml(data.explore.note ? `: ${data.explore.note}` : "")}.${note}</p>`,
      );
    if (data.compare) parts.push(compareTableHtml(data.compare));
    if (data.groups) parts.push(groupsTableHtml(data.groups));
    if (data.groups && note && data.groups.groups.some((g) => g.runs === 0)) parts.push(`<p class="muted">${note.trim()}</p>`);
  }
  return `<section class="block" data-kind="${block.kind}" data-index="${data.index}">${parts.join("\n")}</section>`;
}

/** JSON inside a <script> element: `<` escaped so no "</script>" in the data can end it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replaceAll("<", "\\u003c").replaceAll("\u2028", "\\u2028").replaceAll("\u2029", "\\u2029");
}

export function reportHtml(report: ReportData, plotlySource: string, exportedAt: Date = new Date()): string {
  const { report: r, blocks } = report;
  const figures: unknown[] = [];
  const body = r.blocks.map((b, i) => blockHtml(b, blocks[i] ?? { index: i, kind: b.kind, error: "missing" }, figures)).join("\n");
  const pinned = r.pinned_at ? `pinned: runs started before ${r.pinned_at}` : "live when exported";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:">
<title>${escapeHtml(r.title)}</title><style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(r.title)}</h1>
<p class="meta">PerfAtlas report <code>${escapeHtml(r.slug)}</code> · ${escapeHtml(pinned)} · exported ${escapeHtml(exportedAt.toISOString())}</p>
<div class="notes">${renderMarkdown(r.notes)}</div>
${body}
<script type="application/json" id="report-data">${scriptJson(report)}</script>
<script type="application/json" id="figures">${scriptJson(figures)}</script>
<script>${plotlySource.replaceAll("</script", "<\\/script")}</script>
<script>
(function () {
  var figures = JSON.parse(document.getElementById("figures").textContent);
  figures.forEach(function (f, i) {
    var layout = Object.assign({}, f.layout, { height: 460, autosize: true });
    Plotly.newPlot("plot-" + i, f.data, layout, { displaylogo: false, responsive: true });
  });
})();
</script>
</body></html>
`;
}
