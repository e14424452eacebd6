// The mesh layer's settings: collectives' and RemoteBuffers' bounds.
// Declared once, here, through the runtime's registry (the settings table is printed from every layer's);
// this layer's code reads them, and the runtime's, as `config.<name>` from this file.
import { declareSettings, ms, runtimeSettings, type Setting } from "../runtime/face/settings.ts";

export const MESH_SETTINGS = {
  collectiveTimeoutMs: ms(
    "FRAY_COLLECTIVE_TIMEOUT_MS",
    300_000,
    "how long a rank's collective (`collective.allReduce` & co.) waits for its peers before it rejects",
  ),
  collectiveDirectMaxBytes: {
    env: "FRAY_COLLECTIVE_DIRECT_MAX_BYTES",
    kind: "bytes",
    default: 65_536,
    doc:
      "the largest array `collective.allReduce` sends whole to every peer (one round, latency-optimal); larger ones are reduce-scattered " +
      "then all-gathered (two rounds, each rank sends 2(n−1)/n of the array: bandwidth-optimal)",
  },
  collectiveSharedMinBytes: {
    env: "FRAY_COLLECTIVE_SHARED_MIN_BYTES",
    kind: "bytes",
    default: 65_536,
    doc:
      "the smallest array a collective moves through shared memory between ranks of one host (smaller ones go in frames: fewer system " +
      "calls); allReduce's one-round arrays (`FRAY_COLLECTIVE_DIRECT_MAX_BYTES`) always go in frames",
  },
  collectiveOutboxGroups: {
    env: "FRAY_COLLECTIVE_OUTBOX_GROUPS",
    kind: "count",
    default: 16,
    min: 1,
    doc:
      "how many collective groups (a mesh, or its `dims` and slices) a rank's process keeps shared-memory outboxes for while its meshes " +
      "run; the least recently used group's are freed beyond it (a mesh's are freed when it stops)",
  },
  bufferTimeoutMs: ms(
    "FRAY_BUFFER_TIMEOUT_MS",
    60_000,
    "how long a RemoteBuffer `readInto`/`writeFrom` may take; their `timeout` option (seconds) overrides it",
  ),
} as const satisfies Record<string, Setting>;

export const meshSettings = declareSettings(MESH_SETTINGS, runtimeSettings);
export const { config, optionOrSetting, settingName, settingNow } = meshSettings;
