// Worker processes start with glibc's malloc asking for transparent huge pages (GLIBC_TUNABLES glibc.malloc.hugetlb=1;
// glibc 2.35+, ignored elsewhere). Node allocates a large ArrayBuffer with calloc, which maps fresh memory: without
// huge pages its first touch takes one page fault per 4 KiB, and a 256 MiB value pulled from another process or host
// spent more time in those faults than in the copy (measured on a 2-core VM: 110–180 ms to touch 256 MiB, 25–35 ms with
// huge pages; bench/groups/objects.js, H1 and H2). Only the kernel's "madvise" THP mode needs this; "always" has it
// already, "never" ignores it. A user's own glibc.malloc.hugetlb (e.g. 0, to turn it off) is kept.
const TUNABLE = "glibc.malloc.hugetlb";

/** `env` (a worker process's environment) with huge pages asked for, unless its GLIBC_TUNABLES says otherwise. */
export function withHugePages(env: Record<string, string>, platform: NodeJS.Platform = process.platform): Record<string, string> {
  if (platform !== "linux") return env;
  const tunables = env.GLIBC_TUNABLES ?? "";
  if (tunables.split(":").some((t) => t.startsWith(`${TUNABLE}=`))) return env;
  return { ...env, GLIBC_TUNABLES: tunables ? `${tunables}:${TUNABLE}=1` : `${TUNABLE}=1` };
}
