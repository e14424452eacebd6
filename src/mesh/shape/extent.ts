// Extents name the dimensions of a mesh; Points are positions within one.
// Ranks are row-major: the last label varies fastest.

export class Extent {
  readonly size: number;

  constructor(
    readonly labels: readonly string[],
    readonly sizes: readonly number[],
  ) {
    if (labels.length !== sizes.length) throw new TypeError(`extent needs one size per label, got labels [${labels}] and sizes [${sizes}]`);
    for (let i = 0; i < sizes.length; i++) {
      if (!Number.isInteger(sizes[i]) || sizes[i] < 0) throw new RangeError(`size of '${labels[i]}' must be a non-negative integer, got ${sizes[i]}`);
    }
    if (new Set(labels).size !== labels.length) throw new TypeError(`extent labels must be distinct, got [${labels}]`);
    this.size = sizes.reduce((a, b) => a * b, 1);
  }

  /** `{label: size}` for each dimension. */
  static of(dims: Readonly<Record<string, number>>): Extent {
    return new Extent(Object.keys(dims), Object.values(dims));
  }

  /** The sizes as `{label: size}`. */
  get dims(): Record<string, number> {
    return Object.fromEntries(this.labels.map((l, i) => [l, this.sizes[i]]));
  }

  coords(rank: number): Record<string, number> {
    const coords: Record<string, number> = {};
    for (let i = this.labels.length - 1; i >= 0; i--) {
      coords[this.labels[i]] = rank % this.sizes[i];
      rank = Math.floor(rank / this.sizes[i]);
    }
    return Object.fromEntries(this.labels.map((l) => [l, coords[l]]));
  }

  /** The rank at `coords`, which must name every label. */
  rankOf(coords: Readonly<Record<string, number>>): number {
    for (const key of Object.keys(coords)) this.#index(key);
    let rank = 0;
    for (let i = 0; i < this.labels.length; i++) {
      const c = coords[this.labels[i]];
      if (c === undefined) throw new TypeError(`coordinates ${JSON.stringify(coords)} lack '${this.labels[i]}'; give every label of ${this}`);
      if (!Number.isInteger(c) || c < 0 || c >= this.sizes[i]) throw new RangeError(`'${this.labels[i]}' index ${c} is out of range for ${this}`);
      rank = rank * this.sizes[i] + c;
    }
    return rank;
  }

  point(rank: number): Point {
    if (!Number.isInteger(rank) || rank < 0 || rank >= this.size) throw new RangeError(`rank ${rank} is out of range for ${this} of size ${this.size}`);
    return new Point(rank, this.coords(rank), this);
  }

  #index(label: string): number {
    const i = this.labels.indexOf(label);
    if (i < 0) throw new TypeError(`unknown label '${label}'; ${this} has labels [${this.labels.join(", ")}]`);
    return i;
  }

  equals(other: Extent): boolean {
    return this.labels.length === other.labels.length && this.labels.every((l, i) => l === other.labels[i] && this.sizes[i] === other.sizes[i]);
  }

  toString(): string {
    return `{${this.labels.map((l, i) => `${l}: ${this.sizes[i]}`).join(", ")}}`;
  }
}

export class Point {
  constructor(
    readonly rank: number,
    readonly coords: Readonly<Record<string, number>>,
    readonly extent: Extent,
  ) {}

  toString(): string {
    return `Point(rank ${this.rank}, ${JSON.stringify(this.coords)})`;
  }
}
