// Splits a stream of text into lines, holding a partial line until its
// newline arrives (or the stream ends: `flush`).
export class LineSplitter {
  #partial = "";

  /** The lines `text` completes, without their newlines. */
  push(text: string): string[] {
    if (!text.includes("\n")) {
      this.#partial += text;
      return [];
    }
    const lines = (this.#partial + text).split("\n");
    this.#partial = lines.pop()!;
    return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  }

  /** The partial line held, if any, now cleared. */
  flush(): string | null {
    const rest = this.#partial;
    this.#partial = "";
    return rest === "" ? null : rest;
  }
}
