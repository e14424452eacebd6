// Each layer declares its own settings through the runtime's registry (src/<layer>/settings.ts): it reads
// them with those of the layers below, and a variable or a name is declared once.
import assert from "node:assert/strict";
import { it } from "node:test";
import { declareSettings, ms, runtimeSettings } from "../../src/runtime/face/settings.ts";
import { declaredSettings } from "../../src/runtime/base/setting-registry.ts";
import { clusterSettings } from "../../src/cluster/settings.ts";
import { config as launcherConfig, settingNow as launcherSettingNow } from "../../src/launchers/settings.ts";

it("a layer reads its own settings and those of the layers below it, and names them in messages", () => {
  assert.equal(launcherConfig.hostsStartTimeoutMs, 600_000); // the launchers' own
  assert.equal(launcherConfig.scancelTimeoutMs, clusterSettings.config.scancelTimeoutMs); // the cluster's
  assert.equal(launcherConfig.connectTimeoutMs, runtimeSettings.config.connectTimeoutMs); // the runtime's
  process.env.FRAY_CLUSTER_SPEC = "slurm";
  try {
    assert.equal(launcherConfig.clusterSpec, "slurm");
    assert.equal(launcherSettingNow("clusterSpec"), "FRAY_CLUSTER_SPEC=slurm");
  } finally {
    delete process.env.FRAY_CLUSTER_SPEC;
  }
});

it("the registry lists every layer's settings, the runtime's first", () => {
  const names = declaredSettings().map((s) => s.env);
  assert.equal(names[0], "FRAY_CONNECT_TIMEOUT_MS");
  assert.ok(!names.includes("FRAY_THREAD_WAIT_MS"), "the job layer's settings are not loaded here");
  assert.ok(names.includes("FRAY_SCANCEL_TIMEOUT_MS") && names.includes("FRAY_HOSTS_START_TIMEOUT_MS"));
});

it("a variable is declared once, and a layer's names do not shadow those below it", () => {
  assert.throws(() => declareSettings({ again: ms("FRAY_CONNECT_TIMEOUT_MS", 1, "a second declaration") }), /FRAY_CONNECT_TIMEOUT_MS is declared twice/);
  assert.throws(
    () => declareSettings({ connectTimeoutMs: ms("FRAY_OTHER_CONNECT_MS", 1, "a name taken below") }, runtimeSettings),
    /"connectTimeoutMs" is taken/,
  );
});
