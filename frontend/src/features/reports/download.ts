// The export button's work: plotly's dist bundle is fetched as text only when asked (a chunk of
// its own), then the one HTML file is built and saved.
import type { ReportData } from "./api/get-report-data";
import { reportHtml } from "./export-html";

export async function downloadReportHtml(data: ReportData): Promise<void> {
  const { default: plotly } = await import("plotly.js/dist/plotly-cartesian.min.js?raw");
  const blob = new Blob([reportHtml(data, plotly)], { type: "text/html;charset=utf-8" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = `${data.report.slug}.html`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
