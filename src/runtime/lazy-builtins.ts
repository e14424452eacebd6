// Node built-ins that most processes never use, loaded (synchronously) on
// first use rather than at start, where every worker would pay for them:
// node:tls serves TCP with certificates only, node:inspector finds where an
// actor class is defined, on the side that spawns it.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export const nodeTls = (): typeof import("node:tls") => require("node:tls");
export const nodeInspector = (): typeof import("node:inspector") => require("node:inspector");
