import { useState } from "react";
import { useNavigate } from "react-router-dom";
import { WriteError } from "../../../components/ui/WriteError";
import { useReports } from "../api/get-reports";
import { useAddBlock } from "../api/write-report";
import { slugify, type Block } from "../blocks";
import { paths } from "../../../lib/paths";

const NEW = "__new";

/** "Add to report": this page's view as a block at the end of a report, a new one or one of the
 * existing; then the report opens. */
export function AddToReport({ block }: { block: Block | null }) {
  const [open, setOpen] = useState(false);
  const [target, setTarget] = useState(NEW);
  const [title, setTitle] = useState("");
  const reports = useReports();
  const add = useAddBlock();
  const navigate = useNavigate();
  if (!block) return null;
  const items = reports.data?.items ?? [];
  const chosen = target === NEW || items.some((r) => r.slug === target) ? target : NEW;
  const submit = () => {
    const isNew = chosen === NEW;
    const slug = isNew ? slugify(title) : chosen;
    add.mutate({ slug, title: isNew ? title.trim() : null, block }, { onSuccess: (report) => navigate(paths.report(report.slug)) });
  };
  return (
    <div className="add-to-report">
      <button type="button" className="button" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="add-to-report">
        Add to report
      </button>
      {open && (
        <form
          className="card popover"
          aria-label="Add to report"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <label className="field">
            <span>report</span>
            <select value={chosen} onChange={(e) => setTarget(e.target.value)} data-testid="report-choice">
              <option value={NEW}>a new report…</option>
              {items.map((r) => (
                <option key={r.slug} value={r.slug}>
                  {r.title} ({r.slug})
                </option>
              ))}
            </select>
          </label>
          {chosen === NEW && (
            <label className="field">
              <span>title</span>
              <input value={title} onChange={(e) => setTitle(e.target.value)} required placeholder="Tahoe downloads, Sep 2011" data-testid="report-title" />
              {title.trim() && <small className="muted">address /reports/{slugify(title)}</small>}
            </label>
          )}
          <div className="actions">
            <button type="submit" className="button primary" data-testid="add-to-report-submit" disabled={add.isPending || (chosen === NEW && !title.trim())}>
              {add.isPending ? "Adding…" : "Add"}
            </button>
            <button type="button" className="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
          <WriteError error={add.error} scope="upload" action="Adding to a report" />
        </form>
      )}
    </div>
  );
}
