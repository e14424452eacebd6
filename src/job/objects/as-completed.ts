// `ctx.asCompleted(refs)`: the refs again, each once, in the order their
// values (or errors) became ready — for progress over a large batch, or for
// handling results as they come instead of in submission order.
import type { ObjectRef } from "./object-ref.ts";

export async function* asCompleted<T>(
  ctx: { get(ref: ObjectRef<T>): Promise<unknown> },
  refs: readonly ObjectRef<T>[],
): AsyncGenerator<ObjectRef<T>, void, undefined> {
  const distinct = [...new Map(refs.map((r) => [r.id, r])).values()];
  const ready: ObjectRef<T>[] = [];
  let wake: (() => void) | null = null;
  for (const ref of distinct) {
    const settled = () => {
      ready.push(ref);
      wake?.();
    };
    ctx.get(ref).then(settled, settled); // a failed one is ready too: its get() rejects with the error
  }
  for (let yielded = 0; yielded < distinct.length; yielded++) {
    while (ready.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = null;
    yield ready.shift()!;
  }
}
