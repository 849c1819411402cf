// The linter settings of the TypeScript code: the SDK (here) and the page (web/src), run
// from the repository's root by scripts/test-all:
//
//   clients/typescript/node_modules/.bin/eslint --config clients/typescript/eslint.config.mjs \
//     clients/typescript/src clients/typescript/examples web/src web/build.mjs web/bench.mjs \
//     web/shot.mjs examples/bots/typescript
//
// One rule, the one the architecture test holds the Rust code to: no function over 80
// lines (counted from its first line to its closing brace, comments included), so that a
// reader holds a unit. As in Rust, tests (`test/`, `web/checks/`) and generated code
// (`gen/`) are not held to it.
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/gen/**", "**/dist/**", "**/node_modules/**"] },
  {
    files: ["**/*.ts", "**/*.mts", "**/*.mjs"],
    languageOptions: { parser: tseslint.parser },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
);
