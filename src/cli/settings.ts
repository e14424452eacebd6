// The CLI declares no settings of its own: it reads the launchers' and the cluster's (and so the
// runtime's), as `config.<name>` from this file, as every layer reads its settings from its own.
import { launchersSettings } from "../launchers/settings.ts";
import { declareSettings } from "../runtime/face/settings.ts";

export const { config, optionOrSetting, settingName, settingNow } = declareSettings({}, launchersSettings);
