// A ValueMesh holds one value per rank of a mesh: what `call()` returns.
import { Extent, Point } from "./extent.ts";
import { Shape, type SliceSpec } from "./shape.ts";

export class ValueMesh<R> implements Iterable<R> {
  readonly #shape: Shape;
  readonly #values: readonly R[];

  /** @internal */
  constructor(shape: Shape, values: readonly R[]) {
    this.#shape = shape;
    this.#values = values;
  }

  /** @internal */
  static of<R>(extent: Extent, values: readonly R[]): ValueMesh<R> {
    return new ValueMesh(Shape.full(extent), values);
  }

  get extent(): Extent {
    return this.#shape.extent;
  }

  get size(): number {
    return this.#shape.extent.size;
  }

  /** The value at `rank`. */
  get(rank: number): R {
    this.extent.point(rank);
    return this.#values[this.#shape.members[rank]];
  }

  /** The value at `coords`, which name every label. */
  item(coords: Readonly<Record<string, number>>): R {
    return this.get(this.extent.rankOf(coords));
  }

  /** Values in rank order. */
  values(): R[] {
    return this.#shape.members.map((m) => this.#values[m]);
  }

  *items(): IterableIterator<[Point, R]> {
    for (let rank = 0; rank < this.size; rank++) yield [this.extent.point(rank), this.get(rank)];
  }

  slice(spec: SliceSpec): ValueMesh<R> {
    return new ValueMesh(this.#shape.slice(spec), this.#values);
  }

  [Symbol.iterator](): Iterator<R> {
    return this.values()[Symbol.iterator]();
  }

  toString(): string {
    return `ValueMesh(${this.extent}, [${this.values().join(", ")}])`;
  }
}
