import { readdirSync } from "node:fs";
import js from "@eslint/js";
import globals from "globals";
import reactHooks from "eslint-plugin-react-hooks";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

// Boundaries between the parts of src/ (ARCHITECTURE.md, "Frontend"), the rule of bulletproof-react's
// import/no-restricted-paths written with ESLint's own no-restricted-imports:
//   app/ may import anything; a feature imports src/components, src/lib, src/api, its own files,
//   and another feature only through that feature's index.ts; components, lib and api import no
//   feature; no feature imports app/.
// The rule sees import paths as written, so the patterns match relative paths: from inside
// features/compare, "../../explore/components/X" and "../explore/url-state" reach into explore.
const FEATURES = readdirSync(new URL("src/features", import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

const UP = String.raw`^(\./)?(\.\./)+`;
const NO_APP = { regex: String.raw`${UP}app(/|$)`, message: "A feature must not import src/app: app composes features, not the other way round." };

function featureBoundary(feature) {
  const others = FEATURES.filter((f) => f !== feature);
  const patterns = [NO_APP];
  if (others.length > 0) {
    patterns.push({
      regex: String.raw`${UP}(features/)?(${others.join("|")})/(?!index$).+`,
      message: 'Import another feature through its index.ts ("../../<feature>"), not its internals; export what it should share there.',
    });
  }
  return {
    files: [`src/features/${feature}/**/*.{ts,tsx}`],
    rules: { "no-restricted-imports": ["error", { patterns }] },
  };
}

export default tseslint.config(
  { ignores: ["dist", "node_modules", "src/api/schema.gen.ts"] },
  {
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    files: ["**/*.{ts,tsx}"],
    languageOptions: { ecmaVersion: 2022, globals: globals.browser },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
  ...FEATURES.map(featureBoundary),
  {
    files: ["src/components/**/*.{ts,tsx}", "src/lib/**/*.{ts,tsx}", "src/api/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: String.raw`${UP}(features|app)(/|$)`,
              message: "src/components, src/lib and src/api are shared by every feature and import none (nor src/app): pass what they need in as props.",
            },
          ],
        },
      ],
    },
  },
  // Formatting is prettier's (npm run format; make lint checks it): no eslint rule may disagree.
  prettier,
);
