// Errors on the wire: class name, message, stack, cause chain, own fields
// (`code`, `errno`, …) and, where it can be found again, the class itself.
// Built-in classes are rebuilt by name. fray's own classes are registered by
// name here by the layer that defines them (a lower layer cannot import a
// higher one). A user's class is named by the URL of the module that defines
// it (found by a locator the runtime installs); the receiver decodes such an
// error as a plain Error with the name kept and a record of the class, and
// the runtime gives it its class after importing the module, before handing
// it to the user. Anything else keeps its name on a plain Error.

type ErrorClass = abstract new (...args: never[]) => Error;

/** The class of a decoded error that must be imported: its module's URL and the class's name. */
export interface ErrorClassRef {
  readonly url: string;
  readonly className: string;
}

const BUILTIN_ERRORS: Record<string, ErrorConstructor> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
};

const registered = new Map<string, ErrorClass>();
const registeredNames = new Map<Function, string>();
const unresolved = new WeakMap<Error, ErrorClassRef>();
let locateClass: ((Class: Function) => string | undefined) | null = null;

/** Makes `Class` (one of fray's own) arrive as itself in any process that registered it too. */
export function registerErrorClass(Class: ErrorClass, name = Class.name): void {
  const holder = registered.get(name);
  if (holder !== undefined && holder !== Class) throw new Error(`two error classes are registered as '${name}'; register one of them under another name`);
  registered.set(name, Class);
  registeredNames.set(Class, name);
}

/** Sets how a sender finds the URL of the module defining a user's error class (undefined: not importable). */
export function setErrorClassLocator(locate: (Class: Function) => string | undefined): void {
  locateClass = locate;
}

/** How a decoded error's class is named: registered by name, by module URL and class name, or not at all. */
type ClassTag = [name: string] | [url: string, className: string] | null;

export type ErrorWire = [name: string, message: string, stack: string, cause: unknown[], fields: Record<string, unknown>, tag: ClassTag];

export function errorToWire(e: Error): ErrorWire {
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(e)) {
    if (key === "cause" || key === "name" || key === "message" || key === "stack") continue;
    const v = (e as unknown as Record<string, unknown>)[key];
    if (typeof v !== "function" && typeof v !== "symbol") fields[key] = v;
  }
  return [e.name, e.message, e.stack ?? "", "cause" in e ? [e.cause] : [], fields, classTag(e)];
}

function classTag(e: Error): ClassTag {
  const Class = (Object.getPrototypeOf(e) as { constructor?: unknown } | null)?.constructor;
  if (typeof Class !== "function" || BUILTIN_ERRORS[Class.name] === Class) return null;
  const name = registeredNames.get(Class);
  if (name !== undefined) return [name];
  const url = locateClass?.(Class);
  return url ? [url, Class.name] : null;
}

/** Rebuilds an error; one whose class must be imported first is added to `pending`. */
export function errorFromWire([name, message, stack, cause, fields, tag]: ErrorWire, pending: Error[] | null): Error {
  const Base = BUILTIN_ERRORS[name] ?? Error;
  const err = cause.length ? new Base(message, { cause: cause[0] }) : new Base(message);
  if (err.name !== name) Object.defineProperty(err, "name", { value: name, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(err, "stack", { value: stack, writable: true, configurable: true, enumerable: false });
  Object.assign(err, fields);
  if (tag?.length === 1) {
    const Class = registered.get(tag[0]);
    if (Class) Object.setPrototypeOf(err, Class.prototype);
  } else if (tag?.length === 2) {
    unresolved.set(err, { url: tag[0], className: tag[1] });
    pending?.push(err);
  }
  return err;
}

/** The class `err`'s sender named, if it still has to be imported. */
export function unresolvedClassOf(err: Error): ErrorClassRef | undefined {
  return unresolved.get(err);
}

/** Gives a decoded error the class its sender named, now loaded. */
export function resolveErrorClass(err: Error, Class: Function): void {
  Object.setPrototypeOf(err, Class.prototype);
  unresolved.delete(err);
}
