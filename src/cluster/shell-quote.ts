// One word for a POSIX shell, whatever characters it holds.
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_/.:=@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
