// `fray dashboard`: serves the dashboard of a cluster (its jobs' failures, logs,
// tasks, processes and metrics as their processes report them, the actors of its
// namespace service) from this process until it is interrupted, guarded by the
// cluster's token.
import { Command, Option } from "commander";
import { createCluster } from "../../cluster.ts";
import { clusterSources, startDashboard } from "../../dashboard.ts";
import { settingName } from "../settings.ts";

export function dashboardCommand(): Command {
  return new Command("dashboard")
    .description("serve a live web dashboard of a cluster's jobs (failures, tasks, logs, charts) and actors (needs the cluster's token) until interrupted")
    .addOption(new Option("--cluster <spec>", "cluster spec: local, local?dir=DIR, slurm?partition=P&account=A").env(settingName("clusterSpec")))
    .option("--listen <host:port>", "where to listen; another host than loopback exposes it (unencrypted) to the network", "127.0.0.1:0")
    .option("--print-url", "print the address with ?token= (anyone who sees it can sign in)")
    .action(async (options: { cluster?: string; listen: string; printUrl?: boolean }, command: Command) => {
      let dashboard;
      const cluster = createCluster(options.cluster ?? "local");
      try {
        // This process has no meshes of its own to show.
        dashboard = await startDashboard({ listen: options.listen, token: cluster.token(), sources: clusterSources(cluster) });
      } catch (err) {
        command.error(`fray dashboard: ${(err as Error).message}`);
      }
      if (options.printUrl) console.log(`fray dashboard of cluster ${cluster.spec}: ${dashboard.url}/?token=${cluster.token()}`);
      else
        console.log(
          `fray dashboard of cluster ${cluster.spec}: ${dashboard.url}/\nsign in with the cluster's token, in ${cluster.tokenFile} (or run with --print-url)`,
        );
      const stop = () => void dashboard.close().then(() => process.exit(0));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}
