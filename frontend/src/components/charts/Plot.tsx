// The one plotly wrapper: plotly.js (a partial build, ./plotly-bundle) is loaded on first use, so
// pages without charts never wait for it; a failure to load or draw shows a message, not a blank page.
import { Component, useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { forWebGL, hasWebGL, isDense } from "./dense";
import type { Figure } from "./figure";

type PlotlyModule = typeof import("./plotly-bundle").default;
let plotlyPromise: Promise<PlotlyModule> | null = null;

export function loadPlotly(): Promise<PlotlyModule> {
  plotlyPromise ??= import("./plotly-bundle")
    .then((m) => m.default)
    .catch((exc: unknown) => {
      plotlyPromise = null;
      throw exc;
    });
  return plotlyPromise;
}

let glPromise: Promise<void> | null = null;

/** plotly with its WebGL scatter registered (./dense.ts), loaded on first need. */
function loadGl(Plotly: PlotlyModule): Promise<void> {
  glPromise ??= import("./plotly-gl")
    .then((m) => Plotly.register([m.default]))
    .catch((exc: unknown) => {
      glPromise = null;
      throw exc;
    });
  return glPromise;
}

/** Layout keys laid over a figure's, for a plot so many pixels wide. */
export type Overlay = (width: number) => Record<string, unknown>;

// One object, so that plotly's react finds the config unchanged (a changed one draws anew).
const CONFIG = {
  // A ResizeObserver below does this: plotly's own responsive mode costs ~130 ms on first draw.
  responsive: false,
  displaylogo: false,
  modeBarButtonsToRemove: ["select2d", "lasso2d"],
  toImageButtonOptions: { filename: "perfatlas" },
};

/** A date axis' range end as plotly gives it ("2025-03-01 12:00:00.5", the UTC time it shows,
 * or milliseconds) in milliseconds. */
function axisMs(v: unknown): number {
  if (typeof v === "number") return v;
  const [day, time = "00:00:00"] = String(v).trim().split(" ");
  return Date.parse(`${day}T${time}Z`);
}

export type PointClick = { customdata: unknown; curveNumber: number; pointNumber: number };

type Props = {
  figure: Figure;
  /** Layout laid over the figure's for the plot's width in pixels: marks that come later than
   * the figure (a series' change points, from a request of their own) or that depend on the
   * width (names placed so as not to overlap). Drawn with the figure; when it changes after the
   * figure is drawn, or the width does, laid over it without drawing the figure's traces again
   * (so keep to shapes and annotations, the latter as many in every overlay: see relayout). */
  overlay?: Overlay;
  height?: number;
  onPointClick?: (point: PointClick) => void;
  label: string;
};

function PlotInner({ figure, overlay, height = 460, onPointClick, label }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const clickRef = useRef(onPointClick);
  const figureRef = useRef(figure);
  const overlayRef = useRef(overlay);
  const heightRef = useRef(height);
  // The overlay drawn last and for which width; and the plot's calls to plotly, one after the
  // other (an overlay is never laid within a draw).
  const applied = useRef<{ overlay: Overlay | undefined; width: number; json: string }>({ overlay: undefined, width: 0, json: "{}" });
  const queue = useRef<Promise<unknown>>(Promise.resolve());

  /** Lays the overlay of now over the plot, if it is drawn and this overlay is not the one drawn
   * (or was drawn for another width). By Plotly.react with the very traces drawn (plotly compares
   * them by reference: unchanged) and the layout changed only in its component arrays of the
   * same length: plotly then draws just those components ("arraydraw"), not the traces; a
   * relayout of the whole annotations array would recalculate and draw everything
   * (annotations' editType is "calc"), and so would one shown or hidden, hence overlays keep
   * their annotations' count, all visible (ones without text hold the places). */
  const relayout = useCallback((Plotly: PlotlyModule, el: HTMLDivElement) => {
    queue.current = queue.current
      .then(async () => {
        const next = overlayRef.current;
        const width = el.clientWidth;
        const shown = figureRef.current;
        if (!el.dataset.drawn || !el.isConnected || (applied.current.overlay === next && applied.current.width === width)) return;
        const laid = next?.(width) ?? {};
        const json = JSON.stringify(laid);
        const before = applied.current;
        applied.current = { overlay: next, width, json };
        // The same marks (a series without change points, a width that places the names alike).
        if (json === before.json) return;
        performance.mark("perfatlas:overlay-start");
        await Plotly.react(el, shown.data, { ...shown.layout, ...laid, height: heightRef.current, autosize: true }, CONFIG);
        performance.mark("perfatlas:overlay-drawn");
      })
      .catch(() => undefined);
  }, []);
  const [error, setError] = useState<string | null>(null);
  const [drawn, setDrawn] = useState(false);

  useEffect(() => {
    clickRef.current = onPointClick;
  }, [onPointClick]);

  useEffect(() => {
    overlayRef.current = overlay;
    const el = ref.current;
    if (el?.dataset.drawn && plotlyPromise) void plotlyPromise.then((Plotly) => relayout(Plotly, el)).catch(() => undefined);
  }, [overlay, relayout]);

  useEffect(() => {
    let cancelled = false;
    const el = ref.current;
    if (!el) return;
    performance.mark("perfatlas:plot-requested");
    loadPlotly()
      .then(async (Plotly) => {
        if (cancelled) return;
        // Dense traces are drawn by WebGL where the browser has it (./dense.ts).
        const shown = figure.data.some(isDense) && hasWebGL() ? forWebGL(figure) : figure;
        if (shown !== figure) await loadGl(Plotly);
        if (cancelled) return;
        const run = queue.current.then(async () => {
          if (cancelled) return null;
          figureRef.current = shown;
          performance.mark("perfatlas:plot-start");
          const over = overlayRef.current;
          const width = el.clientWidth;
          const laid = over?.(width) ?? {};
          heightRef.current = height;
          const drawnGd = await Plotly.react(el, shown.data, { ...shown.layout, ...laid, height, autosize: true }, CONFIG);
          applied.current = { overlay: over, width, json: JSON.stringify(laid) };
          performance.mark("perfatlas:plot-drawn");
          return drawnGd;
        });
        queue.current = run.catch(() => undefined);
        const gd = await run;
        if (cancelled || !gd) return;
        if (!el.dataset.listening) {
          el.dataset.listening = "1";
          gd.on("plotly_click", (event) => {
            const p = event.points[0];
            if (p && clickRef.current) clickRef.current({ customdata: p.customdata, curveNumber: p.curveNumber, pointNumber: p.pointNumber });
          });
          // A zoom redraws the traces drawn coarser than their data for the range shown.
          gd.on("plotly_relayout", (raw: unknown) => {
            const event = raw as Record<string, unknown>;
            const refine = figureRef.current.refine;
            if (!refine) return;
            const r0 = event["xaxis.range[0]"] ?? (event["xaxis.range"] as unknown[] | undefined)?.[0];
            const r1 = event["xaxis.range[1]"] ?? (event["xaxis.range"] as unknown[] | undefined)?.[1];
            const range = r0 !== undefined && r1 !== undefined ? ([axisMs(r0), axisMs(r1)] as [number, number]) : event["xaxis.autorange"] ? null : undefined;
            if (range === undefined) return;
            const next = refine(range);
            void Plotly.restyle(el, { x: next.x, y: next.y }, next.traces);
          });
          // A mark of the layout that takes clicks (captureevents): its name is its customdata.
          gd.on("plotly_clickannotation", (event) => {
            const a = event.annotation;
            if (a.captureevents && clickRef.current) clickRef.current({ customdata: a.name, curveNumber: -1, pointNumber: event.index });
          });
        }
        el.dataset.drawn = "1";
        setDrawn(true);
        // An overlay that changed while the figure was drawn.
        relayout(Plotly, el);
      })
      .catch((exc: unknown) => {
        if (!cancelled) setError(exc instanceof Error ? exc.message : String(exc));
      });
    return () => {
      cancelled = true;
    };
  }, [figure, height, relayout]);

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
        void plotlyPromise
          ?.then(async (Plotly) => {
            await Plotly.Plots.resize(el);
            // Marks placed for the width (names that would overlap) placed again.
            relayout(Plotly, el);
          })
          .catch(() => {});
      });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      cancelAnimationFrame(frame);
      if (plotlyPromise) void plotlyPromise.then((Plotly) => Plotly.purge(el));
    };
  }, [relayout]);

  if (error)
    return (
      <div className="state state-error" role="alert">
        The chart could not be drawn: {error}
      </div>
    );
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
    if (this.state.error)
      return (
        <div className="state state-error" role="alert">
          The chart failed: {this.state.error}
        </div>
      );
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
