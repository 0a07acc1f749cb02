// plotly's WebGL scatter, loaded only for a figure with a dense trace (./dense.ts): its code
// (regl and its shaders) stays out of the chunk every chart page loads.
import scattergl from "plotly.js/lib/scattergl";

export default scattergl;
