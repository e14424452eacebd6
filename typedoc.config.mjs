// `npm run docs`: HTML API docs from the JSDoc into docs/api/, one module per public entry point.
// The entry points are the sources behind package.json's "exports" (./dist/mesh.d.ts → ./src/mesh.ts),
// so a new entry point is documented as soon as it is exported.
import { readFileSync } from "node:fs";

const { exports } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));
const sources = Object.values(exports)
  .filter((target) => typeof target === "object")
  .map((target) => target.types.replace(/^\.\/dist\//, "./src/").replace(/\.d\.ts$/, ".ts"));
/** @type {Partial<import("typedoc").TypeDocOptions>} */
export default {
  entryPoints: sources,
  tsconfig: "./tsconfig.json",
  out: "./docs/api",
  includeVersion: true,
  // Cluster's protected members are the backends' interface, not the users'.
  excludeProtected: true,
  // Any warning fails the build: a type that a public signature names but no entry point exports
  // (it would be a dead name in the docs), or a {@link} that resolves to nothing.
  treatWarningsAsErrors: true,
  validation: { notExported: true, invalidLink: true, invalidPath: true, rewrittenLink: true, unusedMergeModuleWith: true, notDocumented: false },
  // Internal handles that public signatures name but users never make or pass; each with why.
  intentionallyNotExported: [
    "src/runtime/base/messages.ts:PortRef", // Port.ref: where a port's values go, on the wire
    "src/mesh/errors.ts:RankLocation", // ActorError's constructor, which only the runtime calls
    "src/runtime/actors/endpoint-options.ts:NOT_ENDPOINT_NAMES", // NotEndpointName's list: constructor, supervise, cleanup
  ],
};
