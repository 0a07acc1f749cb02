// The import boundaries of eslint.config.js, run through ESLint itself on snippets placed where the
// rule applies: each violation must fail the lint, and the allowed imports must pass.
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const eslint = new ESLint({ cwd: decodeURIComponent(new URL("..", import.meta.url).pathname) });

/** The messages of no-restricted-imports for `code` as if it were the file at `path` (from frontend/). */
async function restricted(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path });
  const messages = result?.messages ?? [];
  // Any other error would mean the snippet is broken, not that the boundary holds.
  expect(messages.filter((m) => m.ruleId !== "no-restricted-imports")).toEqual([]);
  return messages.map((m) => m.message);
}

describe("feature boundaries", () => {
  // ESLint's first lint loads its config, typescript-eslint and the plugins: seconds on a busy
  // machine, more than a test's 5 s at times. Done once here, under a deadline of its own.
  beforeAll(async () => {
    await eslint.lintText("export {};\n", { filePath: "src/lib/warm-up.ts" });
  }, 120_000);

  it("stops a feature reaching into another feature's components, api or modules", async () => {
    const path = "src/features/compare/components/Probe.tsx";
    const code = [
      'import { DimensionInput } from "../../explore/components/DimensionInput";',
      'import { useRuns } from "../../runs/api/get-runs";',
      'import { parseExploreState } from "../../explore/url-state";',
      'import { useAlerts } from "../../../features/alerts/api/get-alerts";',
      "export const used = [DimensionInput, useRuns, parseExploreState, useAlerts];",
    ].join("\n");
    const messages = await restricted(path, code);
    expect(messages).toHaveLength(4);
    for (const m of messages) expect(m).toContain("through its index.ts");
  });

  it("stops it from a feature's top-level module too", async () => {
    const messages = await restricted(
      "src/features/runs/links-probe.ts",
      'import { exploreSearch } from "../explore/url-state";\nexport const used = exploreSearch;',
    );
    expect(messages).toHaveLength(1);
  });

  it("lets a feature use another through its index.ts, and its own files and the shared parts freely", async () => {
    const code = [
      'import { DimensionInput } from "../../explore";',
      'import { RunsTable } from "../../runs/index";',
      'import { parseRuns } from "../diff";',
      'import { Legend } from "./Legend";',
      'import { Empty } from "../../../components/ui/States";',
      'import { formatNumber } from "../../../lib/format";',
      'import { apiGet } from "../../../api/client";',
      "export const used = [DimensionInput, RunsTable, parseRuns, Legend, Empty, formatNumber, apiGet];",
    ].join("\n");
    expect(await restricted("src/features/compare/components/Probe.tsx", code)).toEqual([]);
  });

  it("stops a feature importing src/app", async () => {
    const messages = await restricted("src/features/alerts/components/Probe.tsx", 'import { router } from "../../../app/router";\nexport const used = router;');
    expect(messages).toEqual([expect.stringContaining("must not import src/app")]);
  });

  it("stops src/components, src/lib and src/api importing any feature, even through its index", async () => {
    for (const [path, source] of [
      ["src/components/layout/Probe.tsx", "../../features/alerts/api/get-alerts"],
      ["src/components/ui/Probe.tsx", "../../features/runs"],
      ["src/lib/probe.ts", "../features/explore"],
      ["src/api/probe.ts", "../features/explore/url-state"],
      ["src/lib/probe.ts", "../app/router"],
    ] as const) {
      const messages = await restricted(path, `import * as probe from "${source}";\nexport const used = probe;`);
      expect(messages, `${path} importing ${source}`).toEqual([expect.stringContaining("import none")]);
    }
  });

  it("lets the app compose any feature's internals", async () => {
    const code = 'import { AlertsTable } from "../../features/alerts/components/AlertsTable";\nexport const used = AlertsTable;';
    expect(await restricted("src/app/routes/Probe.tsx", code)).toEqual([]);
  });
});
