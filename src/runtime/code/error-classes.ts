// Errors keep their class across the wire where the class is exported. The
// sender names the module that defines an error's class (the inspector finds
// it synchronously, as encoding is); the receiver imports that module and
// gives the error its class before the error reaches the user. A class that
// is not exported, or lives in an entry script (importing it would run the
// script again), leaves a plain Error with the class's name.
import { pathToFileURL } from "node:url";
import { resolveErrorClass, setErrorClassLocator, unresolvedClassOf, type ErrorClassRef } from "../../wire/error-codec.ts";
import { scriptOf } from "./code-locator.ts";

const entryScript = process.argv[1] ? pathToFileURL(process.argv[1]).href : null;

const modules = new WeakMap<Function, string | undefined>();

/** The importable URL of the module defining `Class`, or undefined (a built-in, an eval, the entry script). */
function moduleOf(Class: Function): string | undefined {
  if (modules.has(Class)) return modules.get(Class);
  let url: string | undefined;
  try {
    url = scriptOf(Class);
    if (url.startsWith("/")) url = pathToFileURL(url).href;
    if (!url.startsWith("file:") || url === entryScript) url = undefined;
  } catch {
    url = undefined; // no source location: a built-in or bound function
  }
  modules.set(Class, url);
  return url;
}

setErrorClassLocator(moduleOf);

const classes = new Map<string, Promise<Function | undefined>>();

/** Gives each of `errors` (decoded with a class still to import) its class, where that class is exported. */
export async function reviveErrorClasses(errors: readonly Error[]): Promise<void> {
  await Promise.all(
    errors.map(async (err) => {
      const ref = unresolvedClassOf(err);
      if (!ref) return;
      const key = `${ref.url}#${ref.className}`;
      let found = classes.get(key);
      if (!found) classes.set(key, (found = exportedClass(ref)));
      const Class = await found;
      if (Class) resolveErrorClass(err, Class);
    }),
  );
}

/** The error class named `className` among the module's exports; undefined if it has none (or cannot be loaded here). */
async function exportedClass({ url, className }: ErrorClassRef): Promise<Function | undefined> {
  if (!url.startsWith("file:") || url === entryScript) return undefined;
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(url)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const isClass = (v: unknown): v is Function => typeof v === "function" && v.name === className && v.prototype instanceof Error;
  if (isClass(namespace[className])) return namespace[className];
  const cjs = namespace.default;
  const candidates = [...Object.values(namespace), ...(cjs && typeof cjs === "object" ? Object.values(cjs) : [])];
  return candidates.find(isClass);
}
