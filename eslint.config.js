// Lint: typescript-eslint's type-checked recommended rules over src, scripts, bench and test.
import tseslint from "typescript-eslint";

export default tseslint.config(
  // test/slowest-files.mjs (a test reporter), test/run-suite.mjs (the suite's runner),
  // test/run-helpers.mjs (the helper processes it starts) and test/together.mjs (its process for
  // many files) are plain JavaScript, outside the TypeScript project.
  {
    ignores: [
      "node_modules/**",
      "coverage/**",
      "data/**",
      "test-output/**",
      "src/dashboard/assets/**",
      "src/docs/assets/**",
      ".cache/**",
      "test/slowest-files.mjs",
      "test/run-suite.mjs",
      "test/run-helpers.mjs",
      "test/run-helpers.d.mts",
      "test/together.mjs",
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A leading underscore marks a value left out on purpose (`const { format: _format, ...rest }`).
      "@typescript-eslint/no-unused-vars": ["error", { varsIgnorePattern: "^_", argsIgnorePattern: "^_" }],
    },
  },
  {
    // Functions a reader can hold in their head, factories included: a factory keeps its state in
    // one object and passes it to module functions (as src/store/reading-store.ts does).
    files: ["src/**", "scripts/**", "bench/**"],
    rules: { "max-lines-per-function": ["error", { max: 60, skipBlankLines: true, skipComments: true }] },
  },
  {
    // A module owns one thing, which fits in 300 lines: a longer file is split by what it owns.
    // The generated fits (`*-fit.ts`, written by the evaluations) are numbers, not code.
    files: ["src/**"],
    ignores: ["src/features/*-fit.ts"],
    rules: { "max-lines": ["error", { max: 300 }] },
  },
  {
    // Tests: node:test awaits the promises its top-level `test()` calls return, and response
    // bodies are untyped JSON whose shape the assertions check at run time.
    files: ["test/**"],
    rules: {
      "@typescript-eslint/no-floating-promises": [
        "error",
        { allowForKnownSafeCalls: [{ from: "package", name: "test", package: "node:test" }] },
      ],
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
);
