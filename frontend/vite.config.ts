/// <reference types="vitest/config" />
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { defineConfig, type Plugin, type Rolldown } from "vite";
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

/** The chart pages' route modules (app/router.tsx loads every page lazily) whose chunks index.html
 * preloads when such a page is opened directly: the page's draw must not wait for the app's
 * code to ask for its code. */
const PRELOADED_ROUTES = ["Explore", "Heatmap", "AlertDetail"]; // SeriesHistory is in the entry

/** Put "SeriesHistory=/assets/a.js,/assets/b.js;Explore=..." into index.html: each preloaded
 * route's chunk and the chunks it imports, transitively (a modulepreload fetches the module
 * alone), less the entry and what it imports, which index.html loads anyway. */
function routeChunkNames(): Plugin {
  return {
    name: "perfatlas-route-chunk-names",
    transformIndexHtml: {
      order: "post",
      handler(html, ctx) {
        const chunks = new Map<string, Rolldown.OutputChunk>();
        for (const c of Object.values(ctx.bundle ?? {})) if (c.type === "chunk") chunks.set(c.fileName, c);
        const closure = (chunk: Rolldown.OutputChunk, out: string[] = []): string[] => {
          if (out.includes(chunk.fileName)) return out;
          out.push(chunk.fileName);
          for (const name of chunk.imports) {
            const imported = chunks.get(name);
            if (imported) closure(imported, out);
          }
          return out;
        };
        const loaded = new Set([...chunks.values()].filter((c) => c.isEntry).flatMap((c) => closure(c)));
        const entries = PRELOADED_ROUTES.flatMap((route) => {
          const chunk = [...chunks.values()].find((c) => c.facadeModuleId?.endsWith(`/src/app/routes/${route}.tsx`));
          const names = chunk ? closure(chunk).filter((name) => !loaded.has(name)) : [];
          return names.length > 0 ? [`${route}=${names.map((name) => `/${name}`).join(",")}`] : [];
        });
        return html.replace("%ROUTE_CHUNKS%", entries.join(";"));
      },
    },
  };
}

export default defineConfig({
  plugins: [react(), gzipAssets(), plotlyChunkName(), routeChunkNames()],
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
      // Rolldown's hint that plugins took a share of the build's time (vite's CSS plugin, once
      // per chunk: one per lazily loaded page) says nothing about the app, and depends on the load.
      checks: { bundlerTimings: false },
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
