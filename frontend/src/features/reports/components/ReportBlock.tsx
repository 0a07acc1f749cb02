import { useMemo } from "react";
import { Link } from "react-router-dom";
import { apiUrl } from "../../../api/client";
import { Plot } from "../../../components/charts/Plot";
import { CsvDownload } from "../../../components/ui/CsvDownload";
import { Empty } from "../../../components/ui/States";
import { useTheme } from "../../../lib/use-theme";
import { GroupResult, RunCompare } from "../../compare";
import { DurabilityLegend, ExploreSummary, ExploreTable, FlagLegend, MixNote } from "../../explore";
import { SeriesChart, type SeriesPoints } from "../../series";
import type { BlockData } from "../api/get-report-data";
import { blockLabel, blockLink, exploreStateOf, type Block } from "../blocks";
import { blockFigure } from "../figures";
import { renderMarkdown } from "../markdown";
import { paths } from "../../../lib/paths";

const NO_CHANGE_POINTS: never[] = [];

/** The block's own word on why it may have no runs (a part of a study that needs root, say). */
function Note({ block }: { block: Block }) {
  return block.empty_note ? <p data-testid="empty-note">{block.empty_note}</p> : null;
}

function Content({ block, data, pinnedAt }: { block: Block; data: BlockData; pinnedAt: string | null }) {
  const { theme } = useTheme();
  const figure = useMemo(() => blockFigure(block, data, theme), [block, data, theme]);
  if (data.error)
    return (
      <Empty title={`No data: ${data.error}.`}>
        <Note block={block} />
      </Empty>
    );
  if (block.kind === "markdown") return <div className="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(block.text) }} />;
  if (data.explore) {
    if (data.explore.traces.length === 0 || !figure)
      return (
        <Empty
          title={`No runs of ${data.explore.workload} match${block.kind === "explore" && block.filter?.length ? ` ${block.filter.join(", ")}` : ""}${data.explore.note ? `: ${data.explore.note}` : ""}.`}
        >
          <Note block={block} />
        </Empty>
      );
    return (
      <>
        <ExploreSummary data={data.explore} />
        {/* What the lines split by and the points pool, as on Explore; its one-click changes open Explore. */}
        {block.kind === "explore" && <MixNote data={data.explore} state={exploreStateOf(block, pinnedAt)} />}
        <Plot figure={figure} label={blockLabel(block)} />
        <FlagLegend data={data.explore} />
        <DurabilityLegend data={data.explore} />
        <ExploreTable data={data.explore} />
      </>
    );
  }
  if (data.heatmap)
    return figure ? (
      <Plot figure={figure} label={blockLabel(block)} height={480} />
    ) : (
      <Empty title={`No runs match${block.kind === "heatmap" && block.filter?.length ? ` ${block.filter.join(", ")}` : ""}.`}>
        <Note block={block} />
      </Empty>
    );
  if (data.compare) return <RunCompare data={data.compare} />;
  if (data.groups) {
    // The compare page's own rendering: banner, table, why a group has nothing, legend; the
    // one-click pairing opens the page with the block's settings and the keys that pair them.
    const fixLink =
      block.kind === "compare" ? (pairIgnore: string[]) => blockLink({ ...block, pair_ignore: pairIgnore }, pinnedAt) ?? paths.compare() : undefined;
    return <GroupResult data={data.groups} fixLink={fixLink} note={block.empty_note} />;
  }
  if (data.series) return <SeriesChart points={data.series as SeriesPoints} changePoints={NO_CHANGE_POINTS} />;
  return <Empty title="No data." />;
}

/** One block of a report: its caption, a way to its page and its CSV, and its chart or table. */
export function ReportBlock({ slug, block, data, pinnedAt = null }: { slug: string; block: Block; data: BlockData; pinnedAt?: string | null }) {
  const link = blockLink(block, pinnedAt);
  const caption = block.title || (block.kind === "markdown" ? null : blockLabel(block));
  return (
    <section className={`card report-block block-${block.kind}`} data-testid={`block-${data.index}`} data-kind={block.kind}>
      {(caption || link) && (
        <div className="block-head">
          {caption && <h2>{caption}</h2>}
          <div className="actions">
            {link && (
              <Link className="button small" to={link}>
                Open
              </Link>
            )}
            {block.kind !== "markdown" && !data.error && (
              <CsvDownload
                url={apiUrl("/reports/{slug}/blocks/{index}.csv", { path: { slug, index: data.index } })}
                filename={`${slug}-block-${data.index}.csv`}
              />
            )}
          </div>
        </div>
      )}
      <Content block={block} data={data} pinnedAt={pinnedAt} />
    </section>
  );
}
