// A Shape is an Extent plus, for each of its ranks, the index of the member in
// the mesh it was cut from. Slicing, renaming and flattening make new Shapes;
// the members (actors, procs, values) never move.
import { Extent } from "./extent.ts";

export interface Range {
  readonly start?: number;
  readonly stop?: number;
  readonly step?: number;
}

/** `{label: index}` removes the dimension; `{label: {start, stop, step}}` keeps and restricts it. */
export type SliceSpec = Readonly<Record<string, number | Range>>;

export class Shape {
  constructor(
    readonly extent: Extent,
    readonly members: readonly number[],
  ) {}

  static full(extent: Extent): Shape {
    return new Shape(
      extent,
      Array.from({ length: extent.size }, (_, i) => i),
    );
  }

  slice(spec: SliceSpec): Shape {
    const { labels, sizes } = this.extent;
    const picks: number[][] = labels.map((_, i) => Array.from({ length: sizes[i] }, (_, j) => j));
    const kept: boolean[] = labels.map(() => true);
    for (const [label, sel] of Object.entries(spec)) {
      const d = labels.indexOf(label);
      if (d < 0) throw new TypeError(`unknown label '${label}' in slice; this mesh has labels [${labels.join(", ")}]`);
      if (typeof sel === "number") {
        if (!Number.isInteger(sel) || sel < 0 || sel >= sizes[d]) throw new RangeError(`index ${sel} is out of range for '${label}' of size ${sizes[d]}`);
        picks[d] = [sel];
        kept[d] = false;
      } else {
        const start = sel.start ?? 0;
        const stop = Math.min(sel.stop ?? sizes[d], sizes[d]);
        const step = sel.step ?? 1;
        if (!Number.isInteger(step) || step < 1) throw new RangeError(`step ${step} for '${label}' must be a positive integer`);
        if (!Number.isInteger(start) || start < 0 || start >= sizes[d])
          throw new RangeError(`start ${start} is out of range for '${label}' of size ${sizes[d]}`);
        if (!Number.isInteger(stop) || stop <= start) throw new RangeError(`stop ${sel.stop} must be greater than start ${start} for '${label}'`);
        picks[d] = [];
        for (let j = start; j < stop; j += step) picks[d].push(j);
      }
    }
    const members: number[] = [];
    const strides = sizes.map((_, i) => sizes.slice(i + 1).reduce((a, b) => a * b, 1));
    const walk = (d: number, offset: number) => {
      if (d === labels.length) {
        members.push(this.members[offset]);
        return;
      }
      for (const j of picks[d]) walk(d + 1, offset + j * strides[d]);
    };
    walk(0, 0);
    const extent = new Extent(
      labels.filter((_, i) => kept[i]),
      picks.filter((_, i) => kept[i]).map((p) => p.length),
    );
    return new Shape(extent, members);
  }

  rename(mapping: Readonly<Record<string, string>>): Shape {
    for (const label of Object.keys(mapping)) {
      if (!this.extent.labels.includes(label))
        throw new TypeError(`unknown label '${label}' in rename; this mesh has labels [${this.extent.labels.join(", ")}]`);
    }
    return new Shape(
      new Extent(
        this.extent.labels.map((l) => mapping[l] ?? l),
        this.extent.sizes,
      ),
      this.members,
    );
  }

  flatten(label: string): Shape {
    return new Shape(new Extent([label], [this.extent.size]), this.members);
  }
}
