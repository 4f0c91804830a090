// Type-aware lint for every hand-written TypeScript file (sources, tests, benches, the generator, and any
// new top-level folder: the globs below and tsconfig.lint.json pick it up). `npm run lint` runs this, then
// `prettier --check .`, then knip.
import comments from "@eslint-community/eslint-plugin-eslint-comments/configs";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const typed = ["**/*.ts", "**/*.mts", "**/*.cts"];
const withTypes = (configs) => configs.map((c) => ({ ...c, files: typed, ignores: ["generated/**"] }));

export default tseslint.config(
  {
    // Build output, caches, and test/fixtures/: golden generator inputs and outputs compared byte for byte.
    ignores: [
      "node_modules/",
      "dist/",
      ".tmp/",
      "coverage/",
      "docs/reference/",
      "docs/.vitepress/cache/",
      // The built documentation site and the reference pages npm run docs generates.
      "docs/.vitepress/dist/",
      "docs/public/reference/",
      "docs/sdk/",
      "docs/ru/sdk/",
      "docs/cli/",
      "docs/ru/cli/",
      "test/fixtures/",
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  js.configs.recommended,
  // Every inline disable names the rule and says why after `--`.
  comments.recommended,
  {
    rules: {
      "@eslint-community/eslint-comments/require-description": ["error", { ignore: [] }],
      "@eslint-community/eslint-comments/no-unlimited-disable": "error",
    },
  },
  ...withTypes(tseslint.configs.strictTypeChecked),
  ...withTypes(tseslint.configs.stylisticTypeChecked),
  {
    files: typed,
    ignores: ["generated/**"],
    languageOptions: {
      parserOptions: { project: ["./tsconfig.lint.json"], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // An un-awaited promise that rejects kills the process: every promise is awaited, returned or `void`ed.
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      // A new union member (an error code, a fault kind, a command state) must be handled where it is switched on.
      "@typescript-eslint/switch-exhaustiveness-check": [
        "error",
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "separate-type-imports" }],
      "@typescript-eslint/consistent-type-exports": "error",
      "@typescript-eslint/no-import-type-side-effects": "error",
      // Numbers and booleans print as expected in a message; objects, nullish and unknown still fail.
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
      // `return void v.fail(...)` is this codebase's one-line "record the problem and bail out".
      "@typescript-eslint/no-confusing-void-expression": [
        "error",
        { ignoreArrowShorthand: true, ignoreVoidOperator: true },
      ],
      // Off for the same idiom: `void` there marks the bail-out, not a discarded value.
      "@typescript-eslint/no-meaningless-void-operator": "off",
      // Rejecting with an AbortSignal's `reason` (typed `any`) is the platform's own convention.
      "@typescript-eslint/prefer-promise-reject-errors": [
        "error",
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // Off: with noUncheckedIndexedAccess off and options checked at run time for JavaScript callers, most
      // findings were guards on values the static types cannot vouch for (indexing, user input, closures).
      "@typescript-eslint/no-unnecessary-condition": "off",
      // `summary?.trim() || fallback`: an empty string falls back on purpose.
      "@typescript-eslint/prefer-nullish-coalescing": ["error", { ignorePrimitives: { string: true } }],
      // `const { help: _help, ...rest } = options` drops a key on purpose.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // Off: its only findings were ts-morph's static type guards and a test's cast to the class it just built.
      "@typescript-eslint/no-unsafe-class-instance-assignment": "off",
      // Off: `map.get(k)!` right after the code guaranteed `k` is there reads clearer than a guard that cannot fire.
      "@typescript-eslint/no-non-null-assertion": "off",
      // Off: an `async` implementation of a Promise-returning interface turns a synchronous throw into a rejection.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    // Tests assert on JSON bodies read from the emulator and from real servers: typing each body before the
    // assertion that checks its shape is noise, and a wrong shape fails the assertion anyway.
    files: ["test/**"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-call": "off",
    },
  },
  {
    // Plain-JavaScript tools (this config, etc/api-report.mjs) run on Node.
    files: ["**/*.mjs", "**/*.cjs", "**/*.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", Buffer: "readonly" } },
  },
  {
    // Generated from spec/openapi.yaml by generator/: a finding is fixed in the emitter, never by hand, and the
    // output keeps the spec's shapes (index signatures, interfaces) — so only the syntax-level recommended rules.
    files: ["generated/**"],
    extends: [tseslint.configs.recommended],
  },
);
