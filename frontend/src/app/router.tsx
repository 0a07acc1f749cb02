import { createBrowserRouter } from "react-router-dom";
import { Shell } from "../components/layout/Shell";
import { paths, routePatterns } from "../lib/paths";
import { OpenAlertsBadge } from "../features/alerts/components/OpenAlertsBadge";
import { Overview } from "./routes/Overview";
import { Explore } from "./routes/Explore";
import { Heatmap } from "./routes/Heatmap";
import { SeriesList } from "./routes/SeriesList";
import { SeriesHistory } from "./routes/SeriesHistory";
import { Runs } from "./routes/Runs";
import { RunDetail } from "./routes/RunDetail";
import { Compare } from "./routes/Compare";
import { Agents } from "./routes/Agents";
import { Schedules } from "./routes/Schedules";
import { ScheduleDetail } from "./routes/ScheduleDetail";
import { ScheduleEdit, ScheduleNew } from "./routes/ScheduleEdit";
import { Jobs } from "./routes/Jobs";
import { JobDetail } from "./routes/JobDetail";
import { Alerts } from "./routes/Alerts";
import { AlertDetail } from "./routes/AlertDetail";
import { Incidents } from "./routes/Incidents";
import { IncidentDetail } from "./routes/IncidentDetail";
import { ReportEdit, ReportPage, Reports } from "./routes/Reports";
import { Settings } from "./routes/Settings";
import { NotFound } from "./routes/NotFound";
import { RouteError } from "./routes/RouteError";

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
