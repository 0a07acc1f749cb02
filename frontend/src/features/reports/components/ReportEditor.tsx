import { useState } from "react";
import { Link, useNavigate } from "react-router-dom";
import { ConfirmButton } from "../../../components/ui/ConfirmButton";
import { WriteError } from "../../../components/ui/WriteError";
import type { Report } from "../api/get-report-data";
import { useDeleteReport, useUpdateReport } from "../api/write-report";
import { blockLabel, blockLink, markdownBlock, moveBlock, type Block } from "../blocks";
import { renderMarkdown } from "../markdown";
import { paths } from "../../../lib/paths";

/** A date input's value (YYYY-MM-DD, UTC) from a stored time, and back to the start of that day. */
function dayOf(iso: string | null): string {
  return iso ? iso.slice(0, 10) : "";
}

/** Edit a report: title, notes (markdown, previewed), the pin, and the blocks (reorder, caption,
 * remove, add text). Blocks of data come from Explore, Heatmap and Compare ("Add to report"). */
export function ReportEditor({ report }: { report: Report }) {
  const [title, setTitle] = useState(report.title);
  const [notes, setNotes] = useState(report.notes);
  const [blocks, setBlocks] = useState<Block[]>(report.blocks);
  const [pinned, setPinned] = useState(dayOf(report.pinned_at));
  const [text, setText] = useState("");
  const update = useUpdateReport();
  const remove = useDeleteReport();
  const navigate = useNavigate();
  const save = () =>
    update.mutate(
      { slug: report.slug, body: { title, notes, blocks, pinned_at: pinned ? `${pinned}T00:00:00Z` : null } },
      { onSuccess: () => navigate(paths.report(report.slug)) },
    );
  const setCaption = (i: number, caption: string) => setBlocks(blocks.map((b, j) => (j === i ? { ...b, title: caption || null } : b)));
  return (
    <form
      className="report-editor"
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <section className="card">
        <label className="field">
          <span>title</span>
          <input value={title} onChange={(e) => setTitle(e.target.value)} required data-testid="edit-title" />
        </label>
        <label className="field">
          <span>pinned to</span>
          <input type="date" value={pinned} onChange={(e) => setPinned(e.target.value)} data-testid="edit-pinned" />
          <small className="muted">{pinned ? `only runs started before ${pinned} (UTC)` : "empty: live, every run, new ones as they come"}</small>
        </label>
        <div className="notes-edit">
          <label className="field">
            <span>notes (markdown: # headings, **bold**, lists, `code`, [links](https://…); HTML shows as text)</span>
            <textarea value={notes} rows={10} onChange={(e) => setNotes(e.target.value)} data-testid="edit-notes" />
          </label>
          <div className="markdown preview" aria-label="notes preview" dangerouslySetInnerHTML={{ __html: renderMarkdown(notes) }} />
        </div>
      </section>
      <section className="card">
        <h2>Blocks</h2>
        {blocks.length === 0 && <p className="muted">No blocks yet: use “Add to report” on Explore, Heatmap or Compare, or add text below.</p>}
        <ol className="block-list" data-testid="edit-blocks">
          {blocks.map((b, i) => {
            const link = blockLink(b);
            return (
              <li key={i} data-kind={b.kind}>
                <span className="badge">{b.kind}</span> {link ? <Link to={link}>{blockLabel(b)}</Link> : blockLabel(b)}
                <input aria-label={`caption of block ${i + 1}`} placeholder="caption" value={b.title ?? ""} onChange={(e) => setCaption(i, e.target.value)} />
                <span className="actions">
                  <button
                    type="button"
                    className="button small"
                    aria-label={`move block ${i + 1} up`}
                    disabled={i === 0}
                    onClick={() => setBlocks(moveBlock(blocks, i, -1))}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="button small"
                    aria-label={`move block ${i + 1} down`}
                    disabled={i === blocks.length - 1}
                    onClick={() => setBlocks(moveBlock(blocks, i, 1))}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    className="button small"
                    aria-label={`remove block ${i + 1}`}
                    onClick={() => setBlocks(blocks.filter((_, j) => j !== i))}
                  >
                    Remove
                  </button>
                </span>
              </li>
            );
          })}
        </ol>
        <div className="field">
          <span>add text between blocks</span>
          <textarea aria-label="new text block" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
          <button
            type="button"
            className="button small add-text"
            disabled={!text.trim()}
            onClick={() => {
              setBlocks([...blocks, markdownBlock(text)]);
              setText("");
            }}
          >
            Add text block
          </button>
        </div>
      </section>
      <div className="actions">
        <button type="submit" className="button primary" disabled={update.isPending} data-testid="save-report">
          {update.isPending ? "Saving…" : "Save"}
        </button>
        <Link className="button" to={paths.report(report.slug)}>
          Cancel
        </Link>
        <ConfirmButton
          label="Delete report"
          confirm="Really delete"
          pending={remove.isPending}
          onConfirm={() => remove.mutate(report.slug, { onSuccess: () => navigate(paths.reports()) })}
        />
      </div>
      <WriteError error={update.error ?? remove.error} scope="upload" action="Saving the report" />
    </form>
  );
}
