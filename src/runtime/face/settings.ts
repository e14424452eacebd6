// The runtime's face for settings: what the layers above read of fray's settings (`config.<name>`) and
// how their messages name one. Light on purpose: fray/queue loads only this of the runtime.
export { config, optionOrSetting, settingName, settingNow } from "../base/config.ts";
