// How the local cluster holds a replica to its `resources.ram`: a memory
// cgroup of its own (cgroup v2 if this process's v2 cgroup delegates the
// memory controller, else a writable cgroup v1 memory hierarchy), else
// RLIMIT_DATA (`ulimit -d`), which bounds the heap but not what is mapped
// otherwise. Not RLIMIT_AS: V8 reserves far more address space than it uses,
// so node does not even start under a few hundred MB of it. A replica's
// cgroup sits under this process's own, so whatever limits it holds too.
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type MemoryLimit =
  { readonly kind: "cgroup2" | "cgroup1"; /** The cgroup directory replicas' cgroups are made in. */ readonly parent: string } | { readonly kind: "rlimit" };

/** The best limit this machine lets this process set. */
export function memoryLimitKind(): MemoryLimit {
  let text: string;
  try {
    text = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return { kind: "rlimit" };
  }
  const lines = text.split("\n").map((l) => l.split(":"));
  const v2 = lines.find((l) => l[0] === "0" && l[1] === "")?.[2];
  if (v2 !== undefined) {
    for (const mount of ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]) {
      const parent = join(mount, v2);
      if (read(join(mount, "cgroup.controllers")) === undefined) continue;
      if ((read(join(parent, "cgroup.subtree_control")) ?? "").split(/\s+/).includes("memory") && canMakeChild(parent)) return { kind: "cgroup2", parent };
      break;
    }
  }
  const v1 = lines.find((l) => l.length >= 3 && l[1].split(",").includes("memory"))?.[2];
  if (v1 !== undefined) {
    const parent = join("/sys/fs/cgroup/memory", v1);
    if (read(join(parent, "memory.limit_in_bytes")) !== undefined && canMakeChild(parent)) return { kind: "cgroup1", parent };
  }
  return { kind: "rlimit" };
}

/** Makes cgroup `name` limited to `bytes` (swap included where the kernel counts it); returns its directory. */
export function makeMemoryCgroup(limit: MemoryLimit & { kind: "cgroup2" | "cgroup1" }, name: string, bytes: number): string {
  const dir = join(limit.parent, name);
  mkdirSync(dir, { recursive: true });
  if (limit.kind === "cgroup2") {
    writeFileSync(join(dir, "memory.max"), String(bytes));
    if (read(join(dir, "memory.swap.max")) !== undefined) writeFileSync(join(dir, "memory.swap.max"), "0");
  } else {
    writeFileSync(join(dir, "memory.limit_in_bytes"), String(bytes));
    // memory + swap: without it a replica could go on in swap past its limit.
    if (read(join(dir, "memory.memsw.limit_in_bytes")) !== undefined) writeFileSync(join(dir, "memory.memsw.limit_in_bytes"), String(bytes));
  }
  return dir;
}

/** Did the kernel's OOM killer kill a process of cgroup `dir`? */
export function oomKilled(kind: "cgroup2" | "cgroup1", dir: string): boolean {
  const text = read(join(dir, kind === "cgroup2" ? "memory.events" : "memory.oom_control")) ?? "";
  return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0) > 0;
}

/** Removes cgroup `dir` once its processes are gone; false while some remain. */
export function removeCgroup(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

function canMakeChild(parent: string): boolean {
  const probe = join(parent, `fray-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
