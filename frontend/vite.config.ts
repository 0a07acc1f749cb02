/// <reference types="vitest/config" />
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { defineConfig, type Plugin } from "vite";
import react from "@vitejs/plugin-react";

// `npm run dev` proxies the API to a `perfatlas serve` on :8000 (override with PERFATLAS_API).
const api = process.env.PERFATLAS_API ?? "http://127.0.0.1:8000";

/** Leave a .gz beside every JS and CSS file; `perfatlas serve` sends it to browsers that accept gzip. */
function gzipAssets(): Plugin {
  let outDir = "dist";
  return {
    name: "perfatlas-gzip-assets",
    apply: "build",
    configResolved(config) {
      outDir = config.build.outDir;
    },
    writeBundle(_options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css)$/.test(name)) continue;
        const path = join(outDir, name);
        writeFileSync(`${path}.gz`, gzipSync(readFileSync(path), { level: 9 }));
      }
    },
  };
}

/** Put the hashed names of plotly's chunk and of the chunks it imports into index.html, which
 * preloads them on chart pages (a modulepreload fetches the module alone, not its imports). */
function plotlyChunkName(): Plugin {
  return {
    name: "perfatlas-plotly-chunk-name",
    transformIndexHtml: {
      order: "post",
      handler(html, ctx) {
        const chunk = Object.values(ctx.bundle ?? {}).find((c) => c.type === "chunk" && c.name === "plotly-bundle");
        if (!chunk || chunk.type !== "chunk") return html;
        return html.replace("%PLOTLY_CHUNK%", [chunk.fileName, ...chunk.imports].map((name) => `/${name}`).join(","));
      },
    },
  };
}

export default defineConfig({
  plugins: [react(), gzipAssets(), plotlyChunkName()],
  // plotly.js sources expect a Node-style `global`.
  define: { global: "globalThis" },
  resolve: {
    alias: [
      { find: "maplibre-gl/dist/maplibre-gl.css", replacement: fileURLToPath(new URL("src/components/charts/no-maps.css", import.meta.url)) },
      { find: /^buffer$/, replacement: fileURLToPath(new URL("src/components/charts/no-buffer.ts", import.meta.url)) },
    ],
  },
  build: {
    outDir: "dist",
    sourcemap: false,
    chunkSizeWarningLimit: 2000,
    rollupOptions: {
      // bit-twiddle (under plotly's WebGL scatter) opens with "use restrict", a misspelt
      // directive that means nothing: dropping it when bundling changes nothing.
      onwarn(warning, warn) {
        if (warning.code === "MODULE_LEVEL_DIRECTIVE" && warning.id?.includes("bit-twiddle")) return;
        warn(warning);
      },
    },
  },
  server: { proxy: { "/api": api, "/docs": api, "/openapi.json": api } },
  // A test's time limit: the boundaries test lints sources (seconds of CPU), and on a machine whose
  // cores are busy vitest's default of 5 s failed it; the suite must hold under load.
  test: { include: ["src/**/*.test.ts"], environment: "node", testTimeout: 120_000 },
});
