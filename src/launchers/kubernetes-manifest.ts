// The Kubernetes objects a KubernetesJob creates, typed here rather than with
// @kubernetes/client-node's classes: that client is an optional peer
// dependency, so no public declaration may name it (a user's `tsc` would
// need it, and its own dependencies' types, installed).

/** Container resources, e.g. `{ limits: { "nvidia.com/gpu": "8" } }`. */
export type ContainerResources = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** The subset of a batch/v1 Job that a KubernetesJob fills in. */
export interface WorkerJobManifest {
  apiVersion: "batch/v1";
  kind: "Job";
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    completionMode: "Indexed";
    completions: number;
    parallelism: number;
    backoffLimit: number;
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        restartPolicy: "Never";
        containers: Array<{
          name: string;
          image: string;
          command: string[];
          env: Array<{ name: string; valueFrom: { fieldRef: { fieldPath: string } } }>;
          ports: Array<{ containerPort: number; name: string }>;
          resources?: ContainerResources;
          volumeMounts: Array<{ name: string; mountPath: string; readOnly: boolean }>;
        }>;
        volumes: Array<{ name: string; secret: { secretName: string; defaultMode: number } }>;
      };
    };
  };
}

export interface WorkerJobSpec {
  /** Name prefix shared by the Jobs and the token Secret. */
  readonly jobName: string;
  readonly mesh: string;
  readonly pods: number;
  readonly image: string;
  readonly port: number;
  readonly frayCommand: readonly string[];
  readonly tokenDir: string;
  readonly resources?: ContainerResources;
}

/** An Indexed Job running `fray worker` in each of `pods` pods, listening on the pod's IP. */
export function workerJobManifest(s: WorkerJobSpec): WorkerJobManifest {
  const labels = { "fray.job": s.jobName, "fray.mesh": s.mesh };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: `${s.jobName}-${s.mesh}`, labels },
    spec: {
      completionMode: "Indexed",
      completions: s.pods,
      parallelism: s.pods,
      backoffLimit: 0,
      template: {
        metadata: { labels: { ...labels } },
        spec: {
          restartPolicy: "Never",
          containers: [
            {
              name: "fray-worker",
              image: s.image,
              command: [...s.frayCommand, "worker", "--listen", `tcp://$(POD_IP):${s.port}`, "--token-file", `${s.tokenDir}/token`],
              env: [{ name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }],
              ports: [{ containerPort: s.port, name: "fray" }],
              ...(s.resources ? { resources: s.resources } : {}),
              volumeMounts: [{ name: "fray-token", mountPath: s.tokenDir, readOnly: true }],
            },
          ],
          volumes: [{ name: "fray-token", secret: { secretName: `${s.jobName}-token`, defaultMode: 0o400 } }],
        },
      },
    },
  };
}
