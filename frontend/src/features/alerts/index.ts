// What other features may use of alerts; the rest of features/alerts is its own.
export { useChangePoints, type SeriesChangePoint } from "./api/get-change-points";
export { changePointMarks } from "./figures";
