// ESLint for the whole repository: `npm run lint` runs it (with `prettier --check`), and `npm test`
// runs the lint first. Syntax-only rules (no type information), so it runs in seconds; Prettier
// owns layout, and eslint-config-prettier turns off every rule that would argue with it.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import globals from "globals";
import tseslint from "typescript-eslint";

/** The one line width: Prettier's printWidth (.prettierrc.json) and max-len below. */
const WIDTH = 160;

export default tseslint.config(
  { ignores: ["dist/", "test-artifacts/", "docs/api/"] },
  {
    files: ["**/*.{ts,cts,js,mjs}"],
    extends: [js.configs.recommended, tseslint.configs.recommended, prettier],
    // bench/ and the .mjs fixtures are plain JavaScript run by node, so no-undef needs node's globals.
    languageOptions: { globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // eslint-config-prettier turns max-len off because Prettier breaks code at printWidth, but
      // Prettier leaves alone what it cannot break: strings, template literals, comments and URLs.
      // No line may be longer than WIDTH, those included, so they are split by hand.
      // Regular expression literals are the one exception: one cannot be split without turning it
      // into a RegExp built from strings, which is harder to read than the long line.
      "max-len": ["error", { code: WIDTH, tabWidth: 2, ignoreRegExpLiterals: true }],
      // A leading underscore marks a parameter, binding or caught error kept on purpose: to match
      // a signature, or for Function.length (task and endpoint arity is checked against it).
      // A `let` assigned once but read earlier, by a closure made before the assignment, is the
      // forward reference of two things that need each other (runtime/runtime.ts wires subsystems so).
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    files: ["src/**/*.{ts,cts}"],
    rules: {
      // In src/, `Function` is the type of user code handled by identity: a task function or an
      // actor or error class that is located by its module export (runtime/code/), keyed in
      // WeakMaps, and read for .name, .length and .prototype. Classes and functions go down the
      // same paths, so the precise type would be a union of a call and a construct signature on
      // every one of them. The rule guards against calls that return `any`: the few places that
      // call user code (a task, an endpoint method) take what it returns as `unknown`.
      // Everywhere else (tests, benchmarks, scripts, examples) the rule stays on.
      "@typescript-eslint/no-unsafe-function-type": "off",
    },
  },
  {
    // A .cts file is CommonJS (a worker process's entry, src/mesh/worker/process-entry.cts): `import x = require()` is how it
    // loads a module, where it stands, which is the point there (ES imports would all run before its first line).
    files: ["**/*.cts"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
