// The one plotly wrapper: plotly.js (a partial build, ./plotly-bundle) is loaded on first use, so
// pages without charts never wait for it; a failure to load or draw shows a message, not a blank page.
import { Component, useEffect, useRef, useState, type ReactNode } from "react";
import { forWebGL, hasWebGL } from "./dense";
import type { Figure } from "./figure";

type PlotlyModule = typeof import("./plotly-bundle").default;
let plotlyPromise: Promise<PlotlyModule> | null = null;

export function loadPlotly(): Promise<PlotlyModule> {
  plotlyPromise ??= import("./plotly-bundle").then((m) => m.default).catch((exc: unknown) => {
    plotlyPromise = null;
    throw exc;
  });
  return plotlyPromise;
}

let glPromise: Promise<void> | null = null;

/** plotly with its WebGL scatter registered (./dense.ts), loaded on first need. */
function loadGl(Plotly: PlotlyModule): Promise<void> {
  glPromise ??= import("./plotly-gl").then((m) => Plotly.register([m.default])).catch((exc: unknown) => {
    glPromise = null;
    throw exc;
  });
  return glPromise;
}

export type PointClick = { customdata: unknown; curveNumber: number; pointNumber: number };

type Props = {
  figure: Figure;
  height?: number;
  onPointClick?: (point: PointClick) => void;
  label: string;
};

function PlotInner({ figure, height = 460, onPointClick, label }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const clickRef = useRef(onPointClick);
  const [error, setError] = useState<string | null>(null);
  const [drawn, setDrawn] = useState(false);

  useEffect(() => {
    clickRef.current = onPointClick;
  }, [onPointClick]);

  useEffect(() => {
    let cancelled = false;
    const el = ref.current;
    if (!el) return;
    performance.mark("perfatlas:plot-requested");
    loadPlotly()
      .then(async (Plotly) => {
        if (cancelled) return;
        // Dense traces are drawn by WebGL where the browser has it (./dense.ts).
        const shown = hasWebGL() ? forWebGL(figure) : figure;
        if (shown !== figure) await loadGl(Plotly);
        if (cancelled) return;
        performance.mark("perfatlas:plot-start");
        const gd = await Plotly.react(el, shown.data, { ...shown.layout, height, autosize: true }, {
          // A ResizeObserver below does this: plotly's own responsive mode costs ~130 ms on first draw.
          responsive: false,
          displaylogo: false,
          modeBarButtonsToRemove: ["select2d", "lasso2d"],
          toImageButtonOptions: { filename: "perfatlas" },
        });
        if (!el.dataset.listening) {
          el.dataset.listening = "1";
          gd.on("plotly_click", (event) => {
            const p = event.points[0];
            if (p && clickRef.current) clickRef.current({ customdata: p.customdata, curveNumber: p.curveNumber, pointNumber: p.pointNumber });
          });
        }
        performance.mark("perfatlas:plot-drawn");
        if (!cancelled) {
          el.dataset.drawn = "1";
          setDrawn(true);
        }
      })
      .catch((exc: unknown) => {
        if (!cancelled) setError(exc instanceof Error ? exc.message : String(exc));
      });
    return () => {
      cancelled = true;
    };
  }, [figure, height]);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    let frame = 0;
    let width = el.clientWidth;
    const observer = new ResizeObserver(() => {
      if (el.clientWidth === width || el.clientWidth === 0 || !el.dataset.drawn || !plotlyPromise) return;
      width = el.clientWidth;
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        // A chart hidden or gone by now needs no resizing (plotly refuses it).
        if (!el.isConnected || el.offsetParent === null) return;
        void plotlyPromise?.then((Plotly) => Plotly.Plots.resize(el)).catch(() => {});
      });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      cancelAnimationFrame(frame);
      if (plotlyPromise) void plotlyPromise.then((Plotly) => Plotly.purge(el));
    };
  }, []);

  if (error) return <div className="state state-error" role="alert">The chart could not be drawn: {error}</div>;
  return (
    <div className="plot-frame" style={{ minHeight: height }}>
      {!drawn && <div className="state state-loading plot-loading">Loading the chart library…</div>}
      <div ref={ref} className="plot" aria-label={label} role="img" data-testid="plot" />
    </div>
  );
}

class PlotBoundary extends Component<{ children: ReactNode }, { error: string | null }> {
  state = { error: null as string | null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error.message : String(error) };
  }

  render() {
    if (this.state.error) return <div className="state state-error" role="alert">The chart failed: {this.state.error}</div>;
    return this.props.children;
  }
}

export function Plot(props: Props) {
  return (
    <PlotBoundary>
      <PlotInner {...props} />
    </PlotBoundary>
  );
}
