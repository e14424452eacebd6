// The launchers' settings: how long hosts and cloud machines may take to start, and what a Slurm worker tells its client.
// Declared once, here, through the runtime's registry (the settings table is printed from every layer's);
// this layer's code reads them, and the cluster's (and so the runtime's), as `config.<name>` from this file.
import { declareSettings, ms, type Setting } from "../runtime/face/settings.ts";
import { clusterSettings } from "../cluster/settings.ts";

export const LAUNCHERS_SETTINGS = {
  hostsStartTimeoutMs: ms(
    "FRAY_HOSTS_START_TIMEOUT_MS",
    600_000,
    "how long `SlurmJob` and `KubernetesJob` wait for their hosts' workers (queues can be slow); their `startTimeoutMs` option overrides it",
  ),
  cloudStartTimeoutMs: ms(
    "FRAY_CLOUD_START_TIMEOUT_MS",
    1_800_000,
    "how long `SkyPilotJob` waits for its nodes (a cloud provisions machines first); its `startTimeoutMs` option overrides it",
  ),
  workerHost: { env: "FRAY_WORKER_HOST", kind: "text", shown: "the node's host name", doc: "the host a `SlurmJob` worker tells the client to reach it at" },
} as const satisfies Record<string, Setting>;

export const launchersSettings = declareSettings(LAUNCHERS_SETTINGS, clusterSettings);
export const { config, optionOrSetting, settingName, settingNow } = launchersSettings;
