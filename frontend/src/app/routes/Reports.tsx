import { useParams } from "react-router-dom";
import { QueryView } from "../../components/ui/States";
import { useReport, useReportData } from "../../features/reports/api/get-report-data";
import { useReports } from "../../features/reports/api/get-reports";
import { ReportEditor } from "../../features/reports/components/ReportEditor";
import { ReportList } from "../../features/reports/components/ReportList";
import { ReportView } from "../../features/reports/components/ReportView";

export function Reports() {
  const reports = useReports();
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Reports</h1>
          <p className="muted">
            Pages of notes and plots, like a study's write-up: live (they follow new runs) or pinned to a date; shareable by address and downloadable as one
            HTML file.
          </p>
        </div>
      </div>
      <section className="card">
        <QueryView query={reports} what="reports">
          {(list) => <ReportList items={list.items} />}
        </QueryView>
      </section>
    </div>
  );
}

export function ReportPage() {
  const { slug = "" } = useParams();
  const data = useReportData(slug);
  return (
    <QueryView query={data} what={`report ${slug}`}>
      {(d) => <ReportView data={d} />}
    </QueryView>
  );
}

export function ReportEdit() {
  const { slug = "" } = useParams();
  const report = useReport(slug);
  return (
    <div className="page">
      <div className="page-head">
        <h1>Edit report</h1>
      </div>
      <QueryView query={report} what={`report ${slug}`}>
        {(r) => <ReportEditor key={r.updated_at} report={r} />}
      </QueryView>
    </div>
  );
}
