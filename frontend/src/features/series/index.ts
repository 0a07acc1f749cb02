// What other features may use of series; the rest of features/series is its own.
export type { SeriesPoints } from "./api/get-series-points";
export { SeriesChart } from "./components/SeriesChart";
export { seriesFigure } from "./figures";
