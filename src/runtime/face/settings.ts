// The runtime's face for settings: reading the runtime's (`config.<name>`) and naming one in a
// message, and the registry each layer above declares its own settings through (src/<layer>/settings.ts).
// Light on purpose: fray/queue loads only this of the runtime.
export { config, declareSettings, optionOrSetting, runtimeSettings, settingName, settingNow } from "../base/config.ts";
export { ms, type Setting } from "../base/setting-registry.ts";
