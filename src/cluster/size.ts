// Memory and disk sizes as people write them: "512m", "4g", "1.5T", "16GiB", or bytes;
// and as messages show them: "512 MB".

const UNITS: Record<string, number> = { "": 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40, p: 2 ** 50 };
const SIZE = /^(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?$/i;

/** Bytes in `size`; throws a TypeError naming `what` and the accepted forms. */
export function parseSize(size: string | number, what: string): number {
  if (typeof size === "number") {
    if (Number.isFinite(size) && size >= 0) return Math.ceil(size);
    throw new TypeError(`${what} must be a size such as "512m" or "4g" (or a number of bytes ≥ 0), got ${size}`);
  }
  const m = typeof size === "string" ? SIZE.exec(size.trim()) : null;
  if (!m) throw new TypeError(`${what} must be a size such as "512m", "4g" or "16GiB", got ${JSON.stringify(size)}`);
  return Math.ceil(Number(m[1]) * UNITS[m[2].toLowerCase()]);
}

/** "512 MB", "1.5 GB": sizes as the messages show them. */
export function bytes(n: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${Math.round(n * 100) / 100} ${units[i]}`;
}
