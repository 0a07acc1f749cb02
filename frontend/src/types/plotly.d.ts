// Just what the Plot wrapper uses of plotly.js (its sources ship no types).
declare module "plotly.js/lib/core" {
  export type PlotlyHTMLElement = HTMLDivElement & {
    on(event: string, handler: (event: { points: { customdata?: unknown; x?: unknown; y?: unknown; curveNumber: number; pointNumber: number }[] }) => void): void;
  };
  const Plotly: {
    react(root: HTMLElement, data: unknown[], layout: unknown, config?: unknown): Promise<PlotlyHTMLElement>;
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
