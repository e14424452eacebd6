// Node built-ins that most processes never use, loaded (synchronously) on
// first use rather than at start, where every worker would pay for them:
// node:tls serves TCP with certificates only, node:inspector finds where an
// actor class is defined, on the side that spawns it. (Even createRequire
// costs half a millisecond, so it waits too.)
import { createRequire } from "node:module";

let require: NodeJS.Require | null = null;
const load = (name: string): unknown => (require ??= createRequire(import.meta.url))(name);

export const nodeTls = (): typeof import("node:tls") => load("node:tls") as typeof import("node:tls");
export const nodeInspector = (): typeof import("node:inspector") => load("node:inspector") as typeof import("node:inspector");
