// Compile-time checks of fray/cluster: a callable's arguments are typed from the function.
import { createCluster, Entrypoint, type JobInfo, type JobStatus } from "../../src/cluster.ts";
import { recordEnv } from "../fixtures/cluster-jobs.ts";

export async function typed(): Promise<void> {
  const cluster = createCluster("local");
  const ok = Entrypoint.fromCallable(recordEnv, ["/tmp/out.json", ["SEED"], { when: new Date(), data: new Uint8Array(1) }]);
  const id: string = await cluster.launch({
    name: "t",
    entrypoint: ok,
    resources: { cpu: 2, ram: "4g", device: { kind: "gpu", variant: "H100", count: 1 }, replicas: 3 },
  });
  const info: JobInfo = await cluster.wait(id, { raiseOnFailure: true });
  const all: JobInfo[] = await cluster.wait([id, id]);
  const status: JobStatus = info.status;
  void [all, status];

  // @ts-expect-error: recordEnv's second argument is a string[]
  Entrypoint.fromCallable(recordEnv, ["/tmp/out.json", "SEED", { when: new Date(), data: new Uint8Array(1) }]);
  // @ts-expect-error: binary args are strings
  Entrypoint.fromBinary("node", [1]);
  // @ts-expect-error: not a status
  const bad: JobStatus = "done";
  // @ts-expect-error: a device needs a known kind
  await cluster.launch({ name: "t", entrypoint: ok, resources: { device: { kind: "fpga" } } });
  void bad;
}
