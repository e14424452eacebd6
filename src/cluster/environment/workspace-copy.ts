// A job's environment.workspace, copied into its state directory so the job
// runs in a snapshot: edits made to the original after launch, and writes the
// job makes, do not meet. Left out: `.git` (history, often large, not needed
// to run) and whatever `skip` names (the cluster's own state directory, if it
// lies inside the workspace). Each `node_modules` directory becomes a symlink to
// the original: installed packages are large and read, not written, by jobs,
// and node follows the link, so `node script.js` resolves them as before.
// Symlinks are copied as links, as they are; files keep their mode.
import { copyFileSync, mkdirSync, readdirSync, readlinkSync, symlinkSync } from "node:fs";
import { join } from "node:path";

export function copyWorkspace(from: string, to: string, skip: readonly string[]): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.name === ".git" || skip.includes(source)) continue;
    if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (entry.isDirectory() && entry.name === "node_modules") symlinkSync(source, target);
    else if (entry.isDirectory()) copyWorkspace(source, target, skip);
    else if (entry.isFile()) copyFileSync(source, target);
    // Sockets, FIFOs and devices are not files a job reads: left out.
  }
}
