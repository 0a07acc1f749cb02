// Every address inside the app, built in one place: links, navigate() calls and the router's
// patterns. A page that keeps its state in the URL (Explore, Compare, ...) builds its query in
// its feature (exploreSearch, groupCompareSearch) and passes it here; withSearch writes it.
// (Here in lib/, not app/, because features build links and must not import app/.)

export type SearchValue = string | number | boolean | null | undefined | readonly string[];
/** A page's query: built with URLSearchParams, or as a record (arrays repeat the key, empty values
 * are left out). */
export type Search = URLSearchParams | { readonly [key: string]: SearchValue };

/** The query string of `search`, without "?": URL-encoded, but commas are left as they are
 * (`runs=a,b`, `metric=walk.seconds,find.seconds`): a comma is valid in a query and reads
 * better, and every page's parser gets the same values either way. */
export function searchText(search: Search | undefined): string {
  let params: URLSearchParams;
  if (search === undefined) return "";
  if (search instanceof URLSearchParams) params = search;
  else {
    params = new URLSearchParams();
    for (const [key, value] of Object.entries(search)) {
      if (value === undefined || value === null || value === "" || value === false) continue;
      for (const v of Array.isArray(value) ? (value as readonly string[]) : [String(value)]) if (v !== "") params.append(key, v);
    }
  }
  return params.toString().replace(/%2C/gi, ",");
}

/** `path`, with `?` and the query when there is one. */
export function withSearch(path: string, search?: Search): string {
  const text = searchText(search);
  return text ? `${path}?${text}` : path;
}

const seg = (value: string | number) => encodeURIComponent(String(value));

/** The app's pages. */
export const paths = {
  overview: () => "/",
  explore: (search?: Search) => withSearch("/explore", search),
  heatmap: (search?: Search) => withSearch("/heatmap", search),
  seriesList: (search?: Search) => withSearch("/series", search),
  series: (id: number | string, search?: Search) => withSearch(`/series/${seg(id)}`, search),
  runs: (search?: Search) => withSearch("/runs", search),
  run: (uuid: string) => `/runs/${seg(uuid)}`,
  compare: (search?: Search) => withSearch("/compare", search),
  agents: () => "/agents",
  schedules: () => "/schedules",
  newSchedule: () => "/schedules/new",
  schedule: (id: number | string) => `/schedules/${seg(id)}`,
  editSchedule: (id: number | string) => `/schedules/${seg(id)}/edit`,
  jobs: (search?: Search) => withSearch("/jobs", search),
  job: (id: number | string) => `/jobs/${seg(id)}`,
  alerts: (search?: Search) => withSearch("/alerts", search),
  alert: (id: number | string) => `/alerts/${seg(id)}`,
  incidents: (search?: Search) => withSearch("/incidents", search),
  incident: (id: number | string) => `/incidents/${seg(id)}`,
  reports: () => "/reports",
  report: (slug: string) => `/reports/${seg(slug)}`,
  editReport: (slug: string) => `/reports/${seg(slug)}/edit`,
  settings: (search?: Search) => withSearch("/settings", search),
} as const;

/** The router's pattern of each page of `paths` (its parameters named for useParams). */
export const routePatterns = {
  overview: "/",
  explore: "/explore",
  heatmap: "/heatmap",
  seriesList: "/series",
  series: "/series/:id",
  runs: "/runs",
  run: "/runs/:uuid",
  compare: "/compare",
  agents: "/agents",
  schedules: "/schedules",
  newSchedule: "/schedules/new",
  schedule: "/schedules/:id",
  editSchedule: "/schedules/:id/edit",
  jobs: "/jobs",
  job: "/jobs/:id",
  alerts: "/alerts",
  alert: "/alerts/:id",
  incidents: "/incidents",
  incident: "/incidents/:id",
  reports: "/reports",
  report: "/reports/:slug",
  editReport: "/reports/:slug/edit",
  settings: "/settings",
} as const satisfies Record<keyof typeof paths, string>;
