import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { RouterProvider } from "react-router-dom";
import { Providers, queryClient } from "./app/providers";
import { exploreQueryOptions, getExplore, type Explore } from "./features/explore/api/get-explore";
import { readResponse, toSearch } from "./api/client";
import { canonicalSearch, exploreQuery, parseExploreState } from "./features/explore/url-state";
import { preloadPage, router } from "./app/router";
import { loadPlotly } from "./components/charts/Plot";
import { changePointsQueryOptions, changePointsUrl, getChangePoints } from "./features/alerts/api/get-change-points";
import { DEFAULT_WINDOW, getSeriesPoints, seriesPointsQueryOptions, seriesPointsUrl } from "./features/series/api/get-series-points";
import { paths } from "./lib/paths";
import "./styles.css";

// A chart page opened directly asks for its data first, then loads plotly while the server
// answers: evaluating plotly takes long enough on a slow machine that it should not wait in line.
// index.html may have sent the explore request already, before this code arrived.
if (window.location.pathname === paths.explore()) {
  const query = exploreQuery(parseExploreState(new URLSearchParams(window.location.search)));
  if (query) {
    const early = (window as { __perfatlasEarly?: { search: string; response: Promise<Response> } }).__perfatlasEarly;
    const options = exploreQueryOptions(query);
    const matches = early !== undefined && canonicalSearch(early.search) === canonicalSearch(toSearch({ ...query }));
    let used = false; // the early response can be read once; a retry asks anew
    const fromEarly = ({ signal }: { signal: AbortSignal }) => {
      if (used) return getExplore(query, signal);
      used = true;
      return early!.response.then(
        (r) => readResponse<Explore>(r),
        () => getExplore(query, signal),
      );
    };
    void queryClient.prefetchQuery(matches ? { ...options, queryFn: fromEarly } : options);
  }
}
// A series' page: index.html asked for its points and change points (default window) already.
type Early = { url: string; response: Promise<Response> };
const seriesPath = /^\/series\/(\d+)$/.exec(window.location.pathname);
const earlySeries = (window as { __perfatlasEarlySeries?: { points?: Early; changes?: Early } }).__perfatlasEarlySeries;
if (seriesPath && earlySeries) {
  const id = Number(seriesPath[1]);
  const samples = new URLSearchParams(window.location.search).get("samples") === "1";
  /** The early answer if it was asked at `url` (once: a retry asks anew), else `ask`'s. */
  const once = <T,>(early: Early | undefined, url: string, ask: (signal: AbortSignal) => Promise<T>) => {
    let used = early?.url !== url;
    return ({ signal }: { signal: AbortSignal }): Promise<T> => {
      if (used || !early) return ask(signal);
      used = true;
      return early.response.then(
        (r) => readResponse<T>(r),
        () => ask(signal),
      );
    };
  };
  void queryClient.prefetchQuery({
    ...seriesPointsQueryOptions(id, samples),
    queryFn: once(earlySeries.points, seriesPointsUrl(id, samples), (signal) => getSeriesPoints(id, samples, {}, signal)),
  });
  void queryClient.prefetchQuery({
    ...changePointsQueryOptions(id, DEFAULT_WINDOW),
    queryFn: once(earlySeries.changes, changePointsUrl(id, DEFAULT_WINDOW), (signal) => getChangePoints(id, DEFAULT_WINDOW, undefined, signal)),
  });
}
// A chart page's own code (a chunk of its own, which index.html has asked for already).
preloadPage(window.location.pathname);
if (/^\/(explore|heatmap|series\/|alerts\/)/.test(window.location.pathname)) {
  setTimeout(() => void loadPlotly().catch(() => {}), 0);
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <Providers>
      <RouterProvider router={router} />
    </Providers>
  </StrictMode>,
);
