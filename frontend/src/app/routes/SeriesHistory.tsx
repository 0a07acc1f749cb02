import { useEffect } from "react";
import { useParams, useSearchParams } from "react-router-dom";
import { QueryView } from "../../components/ui/States";
import { useChangePoints } from "../../features/alerts/api/get-change-points";
import { DEFAULT_WINDOW, useSeriesPoints, WINDOW_SIZES } from "../../features/series/api/get-series-points";
import { SeriesChart } from "../../features/series/components/SeriesChart";
import { SeriesHeader } from "../../features/series/components/SeriesHeader";

const NO_CHANGE_POINTS: never[] = [];

export function SeriesHistory() {
  const { id = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const samples = params.get("samples") === "1";
  // An older window of a long series (the newest points before this time), and its size. An
  // address whose time is not one, or whose size is not offered (typed by hand), shows the
  // newest points, or the default size, and is replaced by one that says so.
  const askedUntil = params.get("until");
  const until = askedUntil !== null && !Number.isNaN(Date.parse(askedUntil)) ? askedUntil : undefined;
  const askedPoints = params.get("points");
  const offered = (WINDOW_SIZES as readonly number[]).includes(Number(askedPoints));
  const limit = offered ? Number(askedPoints) : DEFAULT_WINDOW;
  const untilRefused = askedUntil !== null && until === undefined;
  const pointsRefused = askedPoints !== null && !offered;
  useEffect(() => {
    if (!untilRefused && !pointsRefused) return;
    const next = new URLSearchParams(params);
    if (untilRefused) next.delete("until");
    if (pointsRefused) next.delete("points");
    setParams(next, { replace: true });
  }, [params, setParams, untilRefused, pointsRefused]);
  const points = useSeriesPoints(Number(id), samples, { until, limit: limit === DEFAULT_WINDOW ? undefined : limit });
  // The changes among the points shown: the whole window (the series' newest, or the newest
  // before until).
  const changes = useChangePoints(Number(id), limit, until);
  // When the change points' answer is in (the plot does not wait for it: bench_series_page.py).
  useEffect(() => {
    if (changes.data) performance.mark("perfatlas:change-points-answer");
  }, [changes.data]);
  const set = (key: string, value: string | null) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: key === "samples" });
  };
  return (
    <div className="page">
      <QueryView query={points} what={`series ${id}`}>
        {(data) => (
          <>
            <SeriesHeader series={data.series} samples={samples} onSamples={(on) => set("samples", on ? "1" : null)} />
            <SeriesChart
              points={data}
              changePoints={changes.data?.change_points ?? NO_CHANGE_POINTS}
              until={until ?? null}
              limit={limit}
              loading={points.isPlaceholderData}
              onWindow={(to) => set("until", to)}
              onLimit={(n) => set("points", n === DEFAULT_WINDOW ? null : String(n))}
            />
          </>
        )}
      </QueryView>
    </div>
  );
}
