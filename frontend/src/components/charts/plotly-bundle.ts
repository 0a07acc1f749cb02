// The partial plotly.js build the UI draws with: core (which has scatter) plus bar, box and
// heatmap, bundled from plotly's sources as ES modules. The prebuilt dist bundles are compiled
// eagerly by the browser (about 2 s on a busy 2-core machine, against 0.2 s for this).
import Plotly from "plotly.js/lib/core";
import bar from "plotly.js/lib/bar";
import box from "plotly.js/lib/box";
import heatmap from "plotly.js/lib/heatmap";

Plotly.register([bar, box, heatmap]);

export default Plotly;
