import { lazy, type ComponentType } from "react";
import { createBrowserRouter } from "react-router-dom";
import { Shell } from "../components/layout/Shell";
import { paths, routePatterns } from "../lib/paths";
import { OpenAlertsBadge } from "../features/alerts/components/OpenAlertsBadge";
import { RouteError } from "./routes/RouteError";
import { SeriesHistory } from "./routes/SeriesHistory";

// Each page is its own chunk, loaded when first shown (Shell's Suspense shows "Loading" meanwhile;
// later navigations are transitions: the page before stays until the next one's code is in).
// index.html preloads the chunk of a chart page opened directly (vite.config.ts routeChunks).
// The series page is the exception, in the entry chunk: its cold draw is on a budget (500 ms),
// and a lazy page's chunk put its first render ~140 ms later (tests/bench/bench_series_page.py).
const page = <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) => lazy(() => load().then((m) => ({ default: m[name] })));
const routes = {
  overview: () => import("./routes/Overview"),
  explore: () => import("./routes/Explore"),
  heatmap: () => import("./routes/Heatmap"),
  seriesList: () => import("./routes/SeriesList"),
  runs: () => import("./routes/Runs"),
  run: () => import("./routes/RunDetail"),
  compare: () => import("./routes/Compare"),
  agents: () => import("./routes/Agents"),
  schedules: () => import("./routes/Schedules"),
  schedule: () => import("./routes/ScheduleDetail"),
  editSchedule: () => import("./routes/ScheduleEdit"),
  jobs: () => import("./routes/Jobs"),
  job: () => import("./routes/JobDetail"),
  alerts: () => import("./routes/Alerts"),
  alert: () => import("./routes/AlertDetail"),
  incidents: () => import("./routes/Incidents"),
  incident: () => import("./routes/IncidentDetail"),
  reports: () => import("./routes/Reports"),
  settings: () => import("./routes/Settings"),
  notFound: () => import("./routes/NotFound"),
};
const Overview = page(routes.overview, "Overview");
const Explore = page(routes.explore, "Explore");
const Heatmap = page(routes.heatmap, "Heatmap");
const SeriesList = page(routes.seriesList, "SeriesList");
const Runs = page(routes.runs, "Runs");
const RunDetail = page(routes.run, "RunDetail");
const Compare = page(routes.compare, "Compare");
const Agents = page(routes.agents, "Agents");
const Schedules = page(routes.schedules, "Schedules");
const ScheduleDetail = page(routes.schedule, "ScheduleDetail");
const ScheduleNew = page(routes.editSchedule, "ScheduleNew");
const ScheduleEdit = page(routes.editSchedule, "ScheduleEdit");
const Jobs = page(routes.jobs, "Jobs");
const JobDetail = page(routes.job, "JobDetail");
const Alerts = page(routes.alerts, "Alerts");
const AlertDetail = page(routes.alert, "AlertDetail");
const Incidents = page(routes.incidents, "Incidents");
const IncidentDetail = page(routes.incident, "IncidentDetail");
const Reports = page(routes.reports, "Reports");
const ReportPage = page(routes.reports, "ReportPage");
const ReportEdit = page(routes.reports, "ReportEdit");
const Settings = page(routes.settings, "Settings");
const NotFound = page(routes.notFound, "NotFound");

/** Start loading the code of the page at `pathname` (main.tsx, for a chart page opened directly:
 * with index.html's preload, its chunk is in by the time React asks for it). */
export function preloadPage(pathname: string): void {
  const chart: [RegExp, () => Promise<unknown>][] = [
    [/^\/explore$/, routes.explore],
    [/^\/heatmap$/, routes.heatmap],
    [/^\/alerts\/\d+$/, routes.alert],
  ];
  for (const [pattern, load] of chart) if (pattern.test(pathname)) void load().catch(() => {});
}

export const router = createBrowserRouter([
  {
    element: <Shell badges={{ [paths.alerts()]: <OpenAlertsBadge /> }} />,
    errorElement: <RouteError />,
    children: [
      { path: routePatterns.overview, element: <Overview /> },
      { path: routePatterns.explore, element: <Explore /> },
      { path: routePatterns.heatmap, element: <Heatmap /> },
      { path: routePatterns.seriesList, element: <SeriesList /> },
      { path: routePatterns.series, element: <SeriesHistory /> },
      { path: routePatterns.runs, element: <Runs /> },
      { path: routePatterns.run, element: <RunDetail /> },
      { path: routePatterns.compare, element: <Compare /> },
      { path: routePatterns.agents, element: <Agents /> },
      { path: routePatterns.schedules, element: <Schedules /> },
      { path: routePatterns.newSchedule, element: <ScheduleNew /> },
      { path: routePatterns.schedule, element: <ScheduleDetail /> },
      { path: routePatterns.editSchedule, element: <ScheduleEdit /> },
      { path: routePatterns.jobs, element: <Jobs /> },
      { path: routePatterns.job, element: <JobDetail /> },
      { path: routePatterns.alerts, element: <Alerts /> },
      { path: routePatterns.alert, element: <AlertDetail /> },
      { path: routePatterns.incidents, element: <Incidents /> },
      { path: routePatterns.incident, element: <IncidentDetail /> },
      { path: routePatterns.reports, element: <Reports /> },
      { path: routePatterns.report, element: <ReportPage /> },
      { path: routePatterns.editReport, element: <ReportEdit /> },
      { path: routePatterns.settings, element: <Settings /> },
      { path: "*", element: <NotFound /> },
    ],
  },
]);
