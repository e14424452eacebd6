// The runtime's face for user code: where a function or class is exported from and loading it back in
// another process, and node's built-ins that are loaded only when first used.
export { load, locate, scriptOf, type CodeLocation } from "../code/code-locator.ts";
export { NotExportedError } from "../base/errors.ts";
export { execFileText, nodeChildProcess, nodeReadline } from "../code/lazy-builtins.ts";
