// The compare blocks of the offline HTML export: what the page's tables say, in plain HTML: each
// change with its 95 % interval, the samples behind it (n), how many series agree, the verdict in
// words, the trust flags, the durability banner and why a group has nothing to compare.
import { formatNumber, formatPercent, plural, shortId } from "../../lib/format";
import { VERDICT_TEXT, changeText, groupSummary, unpairedGroups, type Compare, type GroupCompare } from "../compare";
import { escapeHtml } from "./markdown";

type Change = NonNullable<Compare["metrics"][number]["changes"][number]>;
type GroupMetric = GroupCompare["metrics"][number];
type GroupCell = GroupMetric["cells"][number];
// The compare answer's split of a metric's headline per subset, and a cell's durability reason,
// read as optional: answers stored before them have neither.
type Split = { dimension: string; subsets: { value: string; cells: GroupCell[] }[] };

function splitOf(m: GroupMetric): Split | null {
  return (m as { split?: Split | null }).split ?? null;
}

function reasonOf(c: GroupCell): string | null {
  return (c as { reason?: string | null }).reason ?? null;
}

function line(text: string, cls = ""): string {
  return `<div${cls ? ` class="${cls}"` : ""}>${escapeHtml(text)}</div>`;
}

function tone(verdict: string | null | undefined): string {
  if (verdict === "not_comparable") return " incomparable";
  return verdict === "better" || verdict === "worse" ? ` ${verdict}` : verdict === "mixed" ? " mixed" : "";
}

function flagsLine(flags: string[], reasons: Record<string, string>): string {
  if (flags.length === 0) return "";
  const title = flags.map((f) => `${f}: ${reasons[f] ?? ""}`).join("\n");
  return `<div class="flags" title="${escapeHtml(title)}">⚑ ${escapeHtml(flags.join(", "))}</div>`;
}

/** The durability banner of a compare answer, as the page draws it above the table. */
export function durabilityBannerHtml(warning: string | null | undefined): string {
  return warning ? `<div class="banner" role="alert" data-banner="durability"><strong>Durability differs.</strong> ${escapeHtml(warning)}</div>` : "";
}

function legendHtml(minEffectPct: number, confidence: number): string {
  return `<p class="muted">better / worse: a real change, its ${Math.round(confidence * 100)} % interval (bootstrap of the samples) excludes zero and it is at least ${escapeHtml(String(minEffectPct))} %; within noise otherwise; not enough repetitions: fewer than 3 samples a side. ⚑ trust flag.</p>`;
}

function changeLines(change: Change): string {
  // Not comparable (durability): no percentage at all, as the page shows it; the reason instead.
  if (change.verdict === "not_comparable") {
    return (
      line(`n ${change.n_base} vs ${change.n}`, "muted") + line(VERDICT_TEXT[change.verdict], "verdict") + (change.reason ? line(change.reason, "muted") : "")
    );
  }
  return line(`${changeText(change)} · n ${change.n_base} vs ${change.n}`, "diff") + line(VERDICT_TEXT[change.verdict], "verdict");
}

export function compareTableHtml(data: Compare): string {
  const head = `<tr><th>metric</th>${data.runs.map((r, i) => `<th class="num">${escapeHtml(`${shortId(r.uuid)} ${r.agent}`)}${i === 0 ? " (baseline)" : ""}</th>`).join("")}</tr>`;
  const rows = data.metrics.map((m) => {
    const cells = m.values.map((v, i) => {
      const diff = i > 0 && m.diff_pct[i] !== null && m.diff_pct[i] !== undefined ? ` (${formatPercent(m.diff_pct[i])})` : "";
      const change = i > 0 ? (m.changes[i] ?? null) : null;
      const spread = m.spread[i];
      const n = m.n[i];
      const detail = [spread ? `${formatNumber(spread[0])}–${formatNumber(spread[1])}` : "", n !== null && n !== undefined ? `n ${n}` : ""]
        .filter(Boolean)
        .join(" · ");
      const body =
        line(`${formatNumber(v, 4)}${diff}`) +
        (detail ? line(detail, "muted") : "") +
        (change ? changeLines(change) : "") +
        flagsLine(m.flags[i] ?? [], data.reasons);
      return `<td class="num${tone(change?.verdict)}">${body}</td>`;
    });
    return `<tr><th>${escapeHtml(`${m.metric} (${m.unit})`)}</th>${cells.join("")}</tr>`;
  });
  const table = `<table data-table="compare"><thead>${head}</thead><tbody>${rows.join("")}</tbody></table>`;
  const empty = data.metrics.length === 0 ? `<p class="muted">These runs share no metric.</p>` : table;
  return durabilityBannerHtml(data.warning) + empty + legendHtml(data.min_effect_pct, data.confidence);
}

/** The headline per subset where the series disagree ("fsync=file: -19 % median over 2 series, 2
 * of 2 agree, worse"), above the pooled figure, which no run has. */
function subsetsHtml(split: Split, index: number): string {
  const items = split.subsets.flatMap((s) => {
    const c = s.cells[index];
    if (!c) return [];
    const name = `${split.dimension}=${s.value}`;
    if (index === 0) return [`<div class="subset">${escapeHtml(`${name}: ${formatNumber(c.value, 4)} · ${c.series} series · n ${c.samples}`)}</div>`];
    const verdict = c.verdict && c.pairs > 0 ? `, ${VERDICT_TEXT[c.verdict]}` : "";
    return [`<div class="subset${tone(c.verdict)}">${escapeHtml(`${name}: ${groupSummary(c, s.cells[0])}${verdict} · ${formatNumber(c.value, 4)}`)}</div>`];
  });
  return `<div class="subsets" data-split="${escapeHtml(split.dimension)}">${items.join("")}</div>`;
}

/** Per metric, its pairs of series one by one: each change with its interval, n and verdict. */
function seriesHtml(data: GroupCompare, m: GroupMetric): string {
  const head = `<tr><th>series</th>${data.values.map((v) => `<th class="num">${escapeHtml(`${data.by} = ${v}`)}</th>`).join("")}</tr>`;
  const rows = m.pairs.map((pair) => {
    const key = Object.entries(pair.key)
      .flatMap(([k, v]) =>
        v && typeof v === "object" ? Object.entries(v as Record<string, unknown>).map(([n, x]) => `${n}=${String(x)}`) : [`${k}=${String(v)}`],
      )
      .join(" ");
    const cells = pair.cells.map((c) => {
      if (c === null) return `<td class="num muted">no runs</td>`;
      const body = line(`${formatNumber(c.value, 4)} · n ${c.n}`) + (c.change ? changeLines(c.change) : "") + flagsLine(c.flags, data.reasons);
      return `<td class="num${tone(c.change?.verdict)}">${body}</td>`;
    });
    return `<tr><th class="key">${escapeHtml(key)}</th>${cells.join("")}</tr>`;
  });
  return `<details><summary>${escapeHtml(`${m.metric}: ${m.pairs.length} series one by one`)}</summary><table data-table="series"><thead>${head}</thead><tbody>${rows.join("")}</tbody></table></details>`;
}

export function groupsTableHtml(data: GroupCompare): string {
  const head = `<tr><th>metric</th>${data.groups.map((g, i) => `<th class="num">${escapeHtml(`${data.by} = ${g.value}`)}${i === 0 ? " (baseline)" : ""}<div class="muted">${escapeHtml(plural(g.runs, "run"))}</div></th>`).join("")}</tr>`;
  const rows = data.metrics.map((m) => {
    const cells = m.cells.map((c, i) => {
      const change = i > 0 && c.change_pct !== null ? ` (${formatPercent(c.change_pct)})` : "";
      const split = splitOf(m);
      let body = split ? subsetsHtml(split, i) : "";
      body +=
        line(`${split ? "pooled: " : ""}${formatNumber(c.value, 4)}${change}`) +
        line(`${c.series} series · ${plural(c.runs, "run")} · n ${c.samples}`, "muted");
      if (i > 0) {
        body += line(groupSummary(c, m.cells[0]), "diff");
        if (c.verdict && c.pairs > 0) body += line(VERDICT_TEXT[c.verdict], "verdict");
        if (c.lowest_pct !== null && c.highest_pct !== null && c.pairs > 1)
          body += line(`series from ${formatPercent(c.lowest_pct)} to ${formatPercent(c.highest_pct)}`, "muted");
        const reason = reasonOf(c);
        if (reason) body += line(reason, "muted");
      }
      return `<td class="num${i > 0 && !split ? tone(c.verdict) : ""}">${body}${flagsLine(c.flags, data.reasons)}</td>`;
    });
    return `<tr><th>${escapeHtml(`${m.metric} (${m.unit}, ${m.direction} is better)`)}</th>${cells.join("")}</tr>`;
  });
  const unpaired = unpairedGroups(data).map(
    (u) => `<li>${escapeHtml(u.reason)}${u.pairIgnore ? escapeHtml(` (pair ignoring ${u.pairIgnore.join(", ")} pairs them)`) : ""}</li>`,
  );
  const why = unpaired.length ? `<ul class="unpaired">${unpaired.join("")}</ul>` : "";
  const table =
    data.metrics.length === 0
      ? `<p class="muted">No runs of ${escapeHtml(`${data.workload} have ${data.by} = ${data.values.join(" or ")}`)}.</p>`
      : `<table data-table="groups"><thead>${head}</thead><tbody>${rows.join("")}</tbody></table>${data.metrics.map((m) => seriesHtml(data, m)).join("")}`;
  const pairing = `<p class="muted">Paired series by series; the pairs differ only in ${escapeHtml(data.by)}${data.pair_ignore.length ? escapeHtml(` (and ${data.pair_ignore.join(", ")}, left out of the pairing)`) : ""}.</p>`;
  return durabilityBannerHtml(data.warning) + why + table + pairing + legendHtml(data.min_effect_pct, data.confidence);
}
