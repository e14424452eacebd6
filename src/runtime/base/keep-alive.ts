// Idle meshes must not hold the event loop open, so sockets and child
// processes are unref'd; whatever is awaiting a reply holds the loop instead,
// through one long timer that is ref'd while anything holds it.
let holders = 0;
let timer: NodeJS.Timeout | null = null;

export function hold(): void {
  if (holders++ === 0) {
    timer ??= setInterval(() => {}, 1 << 30);
    timer.ref();
  }
}

export function release(): void {
  if (holders === 0) return;
  if (--holders === 0) timer?.unref();
}
