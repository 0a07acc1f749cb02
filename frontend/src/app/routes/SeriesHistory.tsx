import { useParams, useSearchParams } from "react-router-dom";
import { QueryView } from "../../components/ui/States";
import { useChangePoints } from "../../features/alerts/api/get-change-points";
import { useSeriesPoints } from "../../features/series/api/get-series-points";
import { SeriesChart } from "../../features/series/components/SeriesChart";
import { SeriesHeader } from "../../features/series/components/SeriesHeader";

const NO_CHANGE_POINTS: never[] = [];

export function SeriesHistory() {
  const { id = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const samples = params.get("samples") === "1";
  const points = useSeriesPoints(Number(id), samples);
  const changes = useChangePoints(Number(id));
  return (
    <div className="page">
      <QueryView query={points} what={`series ${id}`}>
        {(data) => (
          <>
            <SeriesHeader series={data.series} samples={samples} onSamples={(on) => setParams(on ? { samples: "1" } : {}, { replace: true })} />
            <SeriesChart points={data} changePoints={changes.data?.change_points ?? NO_CHANGE_POINTS} />
          </>
        )}
      </QueryView>
    </div>
  );
}
