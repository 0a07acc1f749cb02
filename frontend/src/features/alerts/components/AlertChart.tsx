import { useCallback, useMemo } from "react";
import { useNavigate } from "react-router-dom";
import { Plot, type PointClick } from "../../../components/charts/Plot";
import { formatTime } from "../../../lib/format";
import { useTheme } from "../../../lib/use-theme";
import type { AlertDetail } from "../api/get-alert";
import { alertFigure } from "../figures";
import { confidenceText, levelText } from "../format";
import { paths } from "../../../lib/paths";

/** The levels and confidence in a line, and the series around the change; a point opens its run. */
export function AlertChart({ alert }: { alert: AlertDetail }) {
  const { theme } = useTheme();
  const navigate = useNavigate();
  const figure = useMemo(() => alertFigure(alert, theme), [alert, theme]);
  const onClick = useCallback((p: PointClick) => typeof p.customdata === "string" && navigate(paths.run(p.customdata)), [navigate]);
  return (
    <section className="card">
      <p className="summary-line" data-testid="alert-summary">
        <strong>{levelText(alert.before, alert.after, alert.series.unit)}</strong> · confidence {confidenceText(alert.confidence)} · changed{" "}
        {formatTime(alert.change_at)}
        {alert.tentative && (
          <>
            {" "}
            <span className="badge warn">tentative: only {alert.points_after} points after the change, it may still move</span>
          </>
        )}
      </p>
      <Plot figure={figure} onPointClick={onClick} label={`the series around alert ${alert.id}`} height={400} />
      <p className="muted small">
        Each point is one run's median, the bars its p5–p95; the vertical line is the change, the dotted lines the levels before and after. Click a point to
        open its run.
      </p>
    </section>
  );
}
