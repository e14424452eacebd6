// Reads log files as they grow and hands out whole lines with a prefix
// ("[replica-0] "). Files that do not exist yet are read once they appear.
import { closeSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

export interface LogFile {
  readonly path: string;
  readonly prefix: string;
}

const CHUNK = 1 << 16;

export class LogTail {
  readonly #files: { readonly file: LogFile; readonly decoder: StringDecoder; offset: number; partial: string }[];
  readonly #buffer = Buffer.allocUnsafe(CHUNK);

  constructor(files: readonly LogFile[]) {
    this.#files = files.map((file) => ({ file, decoder: new StringDecoder("utf8"), offset: 0, partial: "" }));
  }

  /** The complete lines written since the last call, file by file. */
  read(): string[] {
    const lines: string[] = [];
    for (const f of this.#files) {
      let fd: number;
      try {
        fd = openSync(f.file.path, "r");
      } catch {
        continue; // not created yet
      }
      try {
        let text = f.partial;
        for (let n; (n = readSync(fd, this.#buffer, 0, CHUNK, f.offset)) > 0;) {
          f.offset += n;
          text += f.decoder.write(this.#buffer.subarray(0, n)); // keeps a character split across reads
        }
        const parts = text.split("\n");
        f.partial = parts.pop() ?? "";
        for (const line of parts) lines.push(f.file.prefix + line);
      } finally {
        closeSync(fd);
      }
    }
    return lines;
  }

  /** Whatever is left, including last lines without a newline. */
  finish(): string[] {
    const lines = this.read();
    for (const f of this.#files) {
      if (f.partial !== "") lines.push(f.file.prefix + f.partial);
      f.partial = "";
    }
    return lines;
  }
}
