// Metrics the layers above the runtime declare for what they count (the job layer's tasks and object
// stores, …): each a plain number the layer keeps and adds to on its hot path, read when scraped. The
// prom-client registry (registry.ts, loaded on first read, not at start) registers each, whenever
// declared; declaring costs nothing until then.

/** A metric whose value (or, with `label`, values by that label) is read from its layer's records when scraped. */
export interface DeclaredMetric {
  /** A counter only goes up (its `read` returns the total so far); a gauge is a value now. */
  readonly type: "counter" | "gauge";
  /** Its Prometheus name: `fray_<what>` (`_total` for a counter). */
  readonly name: string;
  readonly help: string;
  readonly read: () => number | Readonly<Record<string, number>>;
  /** The one label of a metric whose `read` gives its values by that label's value. */
  readonly label?: string;
}

const DECLARED = new Map<string, DeclaredMetric>();
let register: ((metric: DeclaredMetric) => void) | null = null;

/** Declares a metric a layer above the runtime counts, once per name (a module loaded twice declares the same again: the last is read). */
export function declareMetric(metric: DeclaredMetric): void {
  const had = DECLARED.get(metric.name);
  const same = had && had.type === metric.type && had.help === metric.help && had.label === metric.label;
  if (had && !same) throw new Error(`the metric ${metric.name} is declared twice`);
  DECLARED.set(metric.name, metric);
  if (!had) register?.(metric);
}

/** The value of declared metric `name` now (by its label's value, if it has one). */
export function readDeclared(name: string): number | Readonly<Record<string, number>> {
  return DECLARED.get(name)!.read();
}

/** Calls `fn` with every metric declared so far and each declared later (the registry, when it loads). */
export function eachDeclaredMetric(fn: (metric: DeclaredMetric) => void): void {
  DECLARED.forEach((metric) => fn(metric));
  register = fn;
}
