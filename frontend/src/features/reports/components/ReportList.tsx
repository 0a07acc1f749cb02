import { Link } from "react-router-dom";
import { Empty } from "../../../components/ui/States";
import { formatTime } from "../../../lib/format";
import type { ReportSummary } from "../api/get-reports";
import { paths } from "../../../lib/paths";

export function ReportList({ items }: { items: ReportSummary[] }) {
  if (items.length === 0) {
    return (
      <Empty title="No reports yet.">
        <p className="state-body">
          Open <Link to={paths.explore()}>Explore</Link> or <Link to={paths.compare()}>Compare</Link>, set up a view, and press <strong>Add to report</strong>;
          or import one with <code>perfatlas report import FILE.json</code>.
        </p>
      </Empty>
    );
  }
  return (
    <table className="table" data-testid="reports-table">
      <thead>
        <tr>
          <th>title</th>
          <th>address</th>
          <th className="num">blocks</th>
          <th>data</th>
          <th>updated</th>
        </tr>
      </thead>
      <tbody>
        {items.map((r) => (
          <tr key={r.slug}>
            <td>
              <Link to={paths.report(r.slug)}>{r.title}</Link>
            </td>
            <td className="mono small">/reports/{r.slug}</td>
            <td className="num">{r.blocks}</td>
            <td>{r.pinned_at ? `pinned before ${formatTime(r.pinned_at)}` : "live"}</td>
            <td>{formatTime(r.updated_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
