// Just what the Plot wrapper uses of plotly.js (its sources ship no types).
declare module "plotly.js/lib/core" {
  export type PlotlyHTMLElement = HTMLDivElement & {
    on(
      event: "plotly_click",
      handler: (event: { points: { customdata?: unknown; x?: unknown; y?: unknown; curveNumber: number; pointNumber: number }[] }) => void,
    ): void;
    on(event: "plotly_clickannotation", handler: (event: { index: number; annotation: Record<string, unknown> }) => void): void;
    on(event: string, handler: (event: unknown) => void): void;
  };
  const Plotly: {
    react(root: HTMLElement, data: unknown[], layout: unknown, config?: unknown): Promise<PlotlyHTMLElement>;
    relayout(root: HTMLElement, update: Record<string, unknown>): Promise<unknown>;
    restyle(root: HTMLElement, update: Record<string, unknown>, traces?: number[]): Promise<unknown>;
    purge(root: HTMLElement): void;
    register(modules: unknown[]): void;
    Plots: { resize(root: HTMLElement): Promise<unknown> };
  };
  export default Plotly;
}
declare module "plotly.js/lib/bar" {
  const trace: unknown;
  export default trace;
}
declare module "plotly.js/lib/box" {
  const trace: unknown;
  export default trace;
}
declare module "plotly.js/lib/heatmap" {
  const trace: unknown;
  export default trace;
}
declare module "plotly.js/lib/scattergl" {
  const trace: unknown;
  export default trace;
}
