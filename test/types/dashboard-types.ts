// Compile-time checks of fray/dashboard: the state a page or script reads is typed, failures, charts and job pages included.
import type { Cluster } from "../../src/cluster.ts";
import { clusterSources, startDashboard, type DashboardState, type FailureRow, type JobDetail, type Series } from "../../src/dashboard.ts";

export async function typed(cluster: Cluster): Promise<void> {
  const dashboard = await startDashboard({ token: cluster.token(), cluster });
  const state = (await (await fetch(`${dashboard.url}/api/state`)).json()) as DashboardState;
  const first: FailureRow | undefined = state.failures[0];
  const kind: "job" | "task" | "actor" | undefined = first?.kind;
  const causes: readonly string[] | undefined = first?.causes;
  const series: Series | null = state.series;
  const cpu: number | undefined = series?.points[0]?.cpuPercent["vm/42"];
  const failedTask = state.jobs?.[0]?.reports.tasks.failedTasks[0];
  const where: number | null | undefined = failedTask?.where.replica;
  const headline: string | undefined = state.jobs?.[0]?.headline;
  const detail: JobDetail | undefined = await clusterSources(cluster).job?.("train-1a2b");
  const log: readonly string[] | undefined = detail?.log;
  void [kind, causes, cpu, where, headline, log];

  // @ts-expect-error: not a kind of failure
  const bad: FailureRow["kind"] = "mesh";
  // @ts-expect-error: a process's state is alive, exited or gone
  const state2: NonNullable<DashboardState["jobs"]>[number]["reports"]["processes"][number]["state"] = "running";
  void [bad, state2];
  await dashboard.close();
}
