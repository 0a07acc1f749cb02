import { useMemo } from "react";
import { Link } from "react-router-dom";
import { Plot } from "../../../components/charts/Plot";
import { CsvDownload } from "../../../components/ui/CsvDownload";
import { Empty } from "../../../components/ui/States";
import { useTheme } from "../../../lib/use-theme";
import { GroupTable, RunCompare } from "../../compare";
import { ExploreSummary, ExploreTable, FlagLegend } from "../../explore";
import { SeriesChart, type SeriesPoints } from "../../series";
import type { BlockData } from "../api/get-report-data";
import { blockLabel, blockLink, type Block } from "../blocks";
import { blockFigure } from "../figures";
import { renderMarkdown } from "../markdown";

const NO_CHANGE_POINTS: never[] = [];

function Content({ block, data }: { block: Block; data: BlockData }) {
  const { theme } = useTheme();
  const figure = useMemo(() => blockFigure(block, data, theme), [block, data, theme]);
  if (data.error) return <Empty title={`No data: ${data.error}.`} />;
  if (block.kind === "markdown") return <div className="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(block.text) }} />;
  if (data.explore) {
    if (data.explore.traces.length === 0 || !figure) return <Empty title={`No results match${data.explore.note ? `: ${data.explore.note}` : ""}.`} />;
    return (
      <>
        <ExploreSummary data={data.explore} />
        <Plot figure={figure} label={blockLabel(block)} />
        <FlagLegend data={data.explore} />
        <ExploreTable data={data.explore} />
      </>
    );
  }
  if (data.heatmap) return figure ? <Plot figure={figure} label={blockLabel(block)} height={480} /> : <Empty title="No results match." />;
  if (data.compare) return <RunCompare data={data.compare} />;
  if (data.groups) return <GroupTable data={data.groups} />;
  if (data.series) return <SeriesChart points={data.series as SeriesPoints} changePoints={NO_CHANGE_POINTS} />;
  return <Empty title="No data." />;
}

/** One block of a report: its caption, a way to its page and its CSV, and its chart or table. */
export function ReportBlock({ slug, block, data }: { slug: string; block: Block; data: BlockData }) {
  const link = blockLink(block);
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
            {block.kind !== "markdown" && !data.error && <CsvDownload path={`/reports/${slug}/blocks/${data.index}.csv`} query={{}} filename={`${slug}-block-${data.index}.csv`} />}
          </div>
        </div>
      )}
      <Content block={block} data={data} />
    </section>
  );
}
