// KubernetesJob: hosts as pods. One Indexed Job per mesh runs `fray worker` in
// every pod, listening on the pod's IP; the token comes from a Secret mounted
// as a file. The client lists the pods until each is running with an IP, then
// attaches. kill() deletes the Jobs (and their pods) and the Secret.
// The client library is an optional peer dependency, loaded when a
// KubernetesJob starts; no public declaration names its types.
import type { BatchV1Api, CoreV1Api, KubeConfig, V1Pod } from "@kubernetes/client-node";
import { optionOrSetting } from "./settings.ts";
import { sessionToken } from "../runtime/face/network.ts";
import { hold, release } from "../runtime/face/procs.ts";
import { attachToWorkers } from "../mesh/workers.ts";
import { Launcher, type LauncherState } from "./launcher.ts";
import { workerJobManifest, type ContainerResources, type WorkerJobManifest } from "./kubernetes-manifest.ts";

/** A `KubeConfig` from @kubernetes/client-node (described structurally so fray's types do not need that package). */
export interface KubeConfigLike {
  makeApiClient(apiClientType: never): unknown;
}

const CLIENT_PACKAGE = "@kubernetes/client-node";

export interface KubernetesJobOptions {
  /** Meshes to provision: name → number of pods. */
  readonly meshes: Readonly<Record<string, number>>;
  /** Container image with Node.js, fray and your code. */
  readonly image: string;
  readonly namespace?: string;
  /** Name prefix of the Jobs and the Secret; default "fray-<pid>". */
  readonly name?: string;
  /** The workers' port; default 22222. */
  readonly port?: number;
  /** How the container runs `fray`; default ["npx", "fray"]. */
  readonly frayCommand?: readonly string[];
  /** Container resources, e.g. { limits: { "nvidia.com/gpu": "8" } }. */
  readonly resources?: ContainerResources;
  /** Cluster access, a `KubeConfig`; default the usual kubeconfig (KUBECONFIG, ~/.kube/config, or in-cluster). */
  readonly kubeConfig?: KubeConfigLike;
  /** How long to wait for the pods, in ms; default FRAY_HOSTS_START_TIMEOUT_MS (10 minutes). */
  readonly startTimeoutMs?: number;
}

const TOKEN_DIR = "/etc/fray";

export class KubernetesJob extends Launcher {
  readonly #options: KubernetesJobOptions;
  readonly #name: string;
  readonly #namespace: string;
  #apis: Promise<{ batch: BatchV1Api; core: CoreV1Api }> | null = null;
  #created: string[] = [];
  #secret = false;

  constructor(options: KubernetesJobOptions) {
    super(options.meshes, "pods", /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/); // names Kubernetes Jobs: a DNS label
    this.#options = options;
    this.#name = options.name ?? `fray-${process.pid}`;
    this.#namespace = options.namespace ?? "default";
  }

  #clients(): Promise<{ batch: BatchV1Api; core: CoreV1Api }> {
    return (this.#apis ??= loadClient().then((k8s) => {
      let kc = this.#options.kubeConfig as KubeConfig | undefined;
      if (!kc) {
        kc = new k8s.KubeConfig();
        kc.loadFromDefault();
      }
      return { batch: kc.makeApiClient(k8s.BatchV1Api), core: kc.makeApiClient(k8s.CoreV1Api) };
    }));
  }

  /** The Job created for `mesh` of `pods` pods. */
  jobFor(mesh: string, pods: number): WorkerJobManifest {
    return workerJobManifest({
      jobName: this.#name,
      mesh,
      pods,
      image: this.#options.image,
      port: this.#options.port ?? 22222,
      frayCommand: this.#options.frayCommand ?? ["npx", "fray"],
      tokenDir: TOKEN_DIR,
      resources: this.#options.resources,
    });
  }

  /** Creates the Secret and a Job per mesh, and waits for the pods. */
  protected async provision(): Promise<LauncherState> {
    const token = sessionToken();
    const { batch, core } = await this.#clients();
    await core.createNamespacedSecret({
      namespace: this.#namespace,
      body: { apiVersion: "v1", kind: "Secret", metadata: { name: `${this.#name}-token`, labels: { "fray.job": this.#name } }, stringData: { token } },
    });
    this.#secret = true;
    const result: LauncherState = {};
    for (const [mesh, pods] of Object.entries(this.#options.meshes)) {
      const job = this.jobFor(mesh, pods);
      await batch.createNamespacedJob({ namespace: this.#namespace, body: job });
      this.#created.push(job.metadata!.name!);
      const ips = await this.#podIps(core, mesh, pods);
      result[mesh] = attachToWorkers(
        ips.map((ip) => `tcp://${ip}:${this.#options.port ?? 22222}`),
        { token },
      );
    }
    return result;
  }

  /** Lists the mesh's pods until `n` are running with an IP; returns the IPs in completion-index order. */
  async #podIps(core: CoreV1Api, mesh: string, n: number): Promise<string[]> {
    const { ms, bound } = optionOrSetting("startTimeoutMs", this.#options.startTimeoutMs, "hostsStartTimeoutMs");
    const labelSelector = `fray.job=${this.#name},fray.mesh=${mesh}`;
    let running = 0;
    // A watch would do; polling keeps the client simple. (poll.ts loads on use: every actor module imports `fray/mesh`, which exports this launcher.)
    const { pollUntil } = await import("../runtime/face/polling.ts");
    return pollUntil(
      async () => {
        const list = await core.listNamespacedPod({ namespace: this.#namespace, labelSelector });
        const failed = list.items.find((p) => p.status?.phase === "Failed");
        if (failed)
          throw new Error(`pod ${failed.metadata?.name} of mesh '${mesh}' failed: ${failed.status?.message ?? failed.status?.reason ?? "see kubectl logs"}`);
        const up = list.items.filter((p) => p.status?.phase === "Running" && p.status.podIP);
        running = up.length;
        return up.length >= n && up.sort((a, b) => index(a) - index(b)).map((p) => p.status!.podIP!);
      },
      {
        intervalMs: 500,
        deadlineMs: ms,
        bound,
        what: () => `${n} pods of mesh '${mesh}' to run (${running} did)`,
        hint: `see kubectl get pods -n ${this.#namespace} -l ${labelSelector}`,
      },
    );
  }

  /** Deletes the Jobs with their pods, and the Secret. */
  async kill(): Promise<void> {
    hold();
    try {
      if (!this.#created.length && !this.#secret) return;
      const { batch, core } = await this.#clients();
      for (const name of this.#created) {
        await batch.deleteNamespacedJob({ name, namespace: this.#namespace, propagationPolicy: "Foreground" });
      }
      this.#created = [];
      if (this.#secret) await core.deleteNamespacedSecret({ name: `${this.#name}-token`, namespace: this.#namespace });
      this.#secret = false;
    } finally {
      release();
    }
  }
}

/** The client library, or an error saying how to install it. */
async function loadClient(): Promise<typeof import("@kubernetes/client-node")> {
  try {
    return await import(CLIENT_PACKAGE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND" || !String((err as Error).message).includes(CLIENT_PACKAGE)) throw err;
    throw new Error(
      `KubernetesJob needs the optional package ${CLIENT_PACKAGE}, which is not installed: run \`npm install ${CLIENT_PACKAGE}@~1.4\` in your project`,
      { cause: err },
    );
  }
}

function index(pod: V1Pod): number {
  return Number(pod.metadata?.annotations?.["batch.kubernetes.io/job-completion-index"] ?? 0);
}
