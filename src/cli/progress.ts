// Progress of long work in the CLI: a bar on a terminal's stderr (cli-progress),
// and on anything else one plain line per step, so logs and CI output stay readable.
import { SingleBar } from "cli-progress";

export class Progress {
  readonly #bar: SingleBar | null;
  #done: number;

  /** `done` of `total` are done already (a bar started again after an interruption). */
  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly unit: string,
    done = 0,
  ) {
    this.#done = done;
    this.#bar = process.stderr.isTTY
      ? new SingleBar({
          format: `${label} [{bar}] {value}/{total} ${unit} | {duration_formatted} {detail}`,
          stream: process.stderr,
          hideCursor: true,
          clearOnComplete: true,
        })
      : null;
    this.#bar?.start(total, done, { detail: "" });
  }

  /** One more of `total` is done; `detail` says which. Plain output shows each tenth of the way (every step up to 10 steps). */
  step(detail = ""): void {
    const before = Math.floor((this.#done * 10) / this.total);
    this.#done++;
    if (this.#bar) this.#bar.update(this.#done, { detail });
    else if (Math.floor((this.#done * 10) / this.total) > before)
      process.stderr.write(`${this.label}: ${this.#done}/${this.total} ${this.unit}${detail ? ` (${detail})` : ""}\n`);
  }

  stop(): void {
    this.#bar?.stop();
  }
}
