import { useState } from "react";
import { Link } from "react-router-dom";
import { ErrorState } from "../../../components/ui/States";
import { formatTime } from "../../../lib/format";
import type { ReportData } from "../api/get-report-data";
import { downloadReportHtml } from "../download";
import { renderMarkdown } from "../markdown";
import { ReportBlock } from "./ReportBlock";
import { paths } from "../../../lib/paths";

/** A report as a page: title, whether it is live or pinned, the notes, then each block. */
export function ReportView({ data }: { data: ReportData }) {
  const r = data.report;
  const [exporting, setExporting] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const exportHtml = () => {
    setExporting(true);
    setError(null);
    downloadReportHtml(data)
      .catch(setError)
      .finally(() => setExporting(false));
  };
  return (
    <div className="page report">
      <div className="page-head">
        <div>
          <h1 data-testid="report-title">{r.title}</h1>
          <p className="muted small">
            {r.pinned_at ? (
              <span className="badge" data-testid="report-pin">
                pinned: runs started before {formatTime(r.pinned_at)}
              </span>
            ) : (
              <span className="badge" data-testid="report-pin">
                live: follows new runs
              </span>
            )}{" "}
            · updated {formatTime(r.updated_at)} · {r.blocks.length} {r.blocks.length === 1 ? "block" : "blocks"}
          </p>
        </div>
        <div className="actions">
          <Link className="button" to={paths.reports()}>
            All reports
          </Link>
          <Link className="button" to={paths.editReport(r.slug)} data-testid="edit-report">
            Edit
          </Link>
          <button type="button" className="button primary" onClick={exportHtml} disabled={exporting} data-testid="export-html">
            {exporting ? "Building…" : "Download HTML"}
          </button>
        </div>
      </div>
      {error !== null && <ErrorState error={error} what="the HTML export" />}
      {r.notes.trim() && <section className="card markdown notes" data-testid="report-notes" dangerouslySetInnerHTML={{ __html: renderMarkdown(r.notes) }} />}
      {r.blocks.map((block, i) => {
        const blockData = data.blocks[i];
        return blockData ? <ReportBlock key={i} slug={r.slug} block={block} data={blockData} pinnedAt={r.pinned_at} /> : null;
      })}
    </div>
  );
}
