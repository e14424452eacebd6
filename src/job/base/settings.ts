// The job layer's settings: tasks' cancelling, worker threads' waiting, streams' windows, where results are kept and spilled.
// Declared once, here, through the runtime's registry (the settings table is printed from every layer's);
// this layer's code reads them, and the runtime's, as `config.<name>` from this file.
import { declareSettings, ms, runtimeSettings, type Setting } from "../../runtime/face/settings.ts";

export const JOB_SETTINGS = {
  cancelGraceMs: ms(
    "FRAY_CANCEL_GRACE_MS",
    1_000,
    "how long a task cancelled with `{ force: true }` that is running may take to end (an async one sees `getJobContext().signal` abort) " +
      "before its worker is replaced: the worker's process group is killed (a worker thread terminated) and a fresh one started; 0: at " +
      "once. A cancel without force never replaces a worker",
  ),
  // Not shorter by default: one-core round trips read 34 µs with 0.1 ms, 32 with 1 ms and 22 with 5 ms on a 2-core VM,
  // likely because a timeout sooner than the kernel's next tick (4 ms at HZ=250) has the timer armed anew each wait.
  threadWaitMs: {
    ...ms(
      "FRAY_THREAD_WAIT_MS",
      5,
      "how long a worker thread that has sent its tasks' values, and has no task left running, waits for the next task in a futex, " +
        "in all per turn of its event loop, after its promise callbacks (a one-at-a-time caller's next task then reaches it sooner); " +
        "anything its parent sends wakes it at once, and it does not wait while it holds a timer, socket or other handle of its own " +
        "(an actor's setInterval, say), so only its unref'd ones may run up to this late, once per turn; 0: never waits",
    ),
    max: 1_000,
  },
  streamWindow: {
    env: "FRAY_STREAM_WINDOW",
    kind: "count",
    default: 0,
    doc:
      "how many items a streaming task or actor method may yield ahead of its reader unless its `window` option says otherwise: it waits " +
      "at its next `yield` until the reader has read more; 0: no limit (it runs ahead as far as it goes, the values kept at the job's " +
      "head until read, as in Ray)",
  },
  namespaceReconnectMs: ms(
    "FRAY_NAMESPACE_RECONNECT_MS",
    10_000,
    "how long a job waits for its namespace service to accept connections when it finds none there (a service being started " +
      "again, at the same address) or finds the one it used gone, before naming fails with an error that the service cannot be " +
      "reached; 0: at once",
  ),
  objectInlineBytes: {
    env: "FRAY_OBJECT_INLINE_BYTES",
    kind: "bytes",
    default: 100 * 1024,
    doc:
      "how large a task's result, or a value a task or actor `put`s, may be (estimated from its typed arrays, strings and elements) " +
      "and still travel to the job's driver, which keeps it; a larger one stays in the worker process that made it (`processes` and " +
      "`mesh` jobs), and whoever reads it (a task on another worker, the driver's `get`) fetches it from there; lost with that worker, " +
      "a result is made again by its task if `maxRetries` allow, else its reads (and a lost `put`'s) reject with `ObjectLostError`",
  },
  objectStoreBytes: {
    env: "FRAY_OBJECT_STORE_BYTES",
    kind: "bytes",
    default: 0,
    doc:
      "how many bytes of the large values a process holds for others to read (results above FRAY_OBJECT_INLINE_BYTES, encoded) it keeps in " +
      "memory; past it the least recently read go to its spill directory (FRAY_OBJECT_SPILL_DIR) and come back when read; a single value " +
      "larger than this fails its task, naming the value and this setting. 0: 30% of the host's memory, for each process (as Ray's object " +
      "store per node: set it lower where many workers share a host)",
  },
  objectSpillDir: {
    env: "FRAY_OBJECT_SPILL_DIR",
    kind: "path",
    shown: "the OS temp directory",
    doc:
      "where a process spills held values past FRAY_OBJECT_STORE_BYTES: each process makes a directory of its own in it when it first " +
      "spills, and removes it when it exits (one killed leaves its `fray-spill-HOST-PID-*` directory, which the next process to spill there removes)",
  },
} as const satisfies Record<string, Setting>;

export const jobSettings = declareSettings(JOB_SETTINGS, runtimeSettings);
export const { config, optionOrSetting, settingName, settingNow } = jobSettings;
