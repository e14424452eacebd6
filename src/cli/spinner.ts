// A one-line "⠋ waiting for … (12 s)" on a terminal's stderr; silent when stderr is not a terminal.
const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

export class Spinner {
  #timer?: NodeJS.Timeout;

  constructor(text: string) {
    if (!process.stderr.isTTY) return;
    const started = Date.now();
    let frame = 0;
    this.#timer = setInterval(() => {
      const seconds = Math.floor((Date.now() - started) / 1000);
      process.stderr.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text} (${seconds} s)\x1b[K`);
    }, 100);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    process.stderr.write("\r\x1b[K");
  }
}
