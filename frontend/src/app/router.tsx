import { createBrowserRouter } from "react-router-dom";
import { Shell } from "../components/layout/Shell";
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
    element: <Shell badges={{ "/alerts": <OpenAlertsBadge /> }} />,
    errorElement: <RouteError />,
    children: [
      { path: "/", element: <Overview /> },
      { path: "/explore", element: <Explore /> },
      { path: "/heatmap", element: <Heatmap /> },
      { path: "/series", element: <SeriesList /> },
      { path: "/series/:id", element: <SeriesHistory /> },
      { path: "/runs", element: <Runs /> },
      { path: "/runs/:uuid", element: <RunDetail /> },
      { path: "/compare", element: <Compare /> },
      { path: "/agents", element: <Agents /> },
      { path: "/schedules", element: <Schedules /> },
      { path: "/schedules/new", element: <ScheduleNew /> },
      { path: "/schedules/:id", element: <ScheduleDetail /> },
      { path: "/schedules/:id/edit", element: <ScheduleEdit /> },
      { path: "/jobs", element: <Jobs /> },
      { path: "/jobs/:id", element: <JobDetail /> },
      { path: "/alerts", element: <Alerts /> },
      { path: "/alerts/:id", element: <AlertDetail /> },
      { path: "/incidents", element: <Incidents /> },
      { path: "/incidents/:id", element: <IncidentDetail /> },
      { path: "/reports", element: <Reports /> },
      { path: "/reports/:slug", element: <ReportPage /> },
      { path: "/reports/:slug/edit", element: <ReportEdit /> },
      { path: "/settings", element: <Settings /> },
      { path: "*", element: <NotFound /> },
    ],
  },
]);
