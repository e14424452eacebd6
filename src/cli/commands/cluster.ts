// `fray cluster stop`: ends a cluster's namespace service (and the actors it
// hosts) now, by asking it with the cluster's token, rather than waiting for
// it to end by itself once idle.
import { Command } from "commander";
import { settingName } from "../settings.ts";
import { clusterSubcommands, print, type Common } from "./cluster-subcommand.ts";

const { sub, action } = clusterSubcommands("cluster");

export function clusterCommand(): Command {
  const cluster = new Command("cluster").description("a cluster's namespace service: the process that holds its named and detached actors");
  cluster.addCommand(
    sub(
      "stop",
      `stop the cluster's namespace service and the actors it hosts, detached ones too (it also ends by itself once idle for ` +
        `${settingName("namespaceIdleMs")}); the next launch starts it again`,
    ).action(
      action(async (c, o: Common) => {
        const pid = await c.stopNamespace({ ask: true }); // a call with the cluster's token, as every call to it
        const said =
          pid === null ? `the namespace service of cluster ${c.spec} is not running` : `stopped the namespace service of cluster ${c.spec} (pid ${pid})`;
        print(o.json, { stopped: pid !== null, pid }, said);
      }),
    ),
  );
  return cluster;
}
