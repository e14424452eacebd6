// What a launched job was asked to run, kept in its record so that a later launch of its name can tell whether it
// asks for the same job (adopted) or another one (refused, saying what differs). Values that may be secrets — env
// values, a function's arguments, setup scripts — are kept as digests only.
import { createHash } from "node:crypto";
import { encodeStandalone } from "../wire/codec.ts";
import type { CheckedRequest } from "./job-request.ts";

export interface RequestFingerprint {
  /** "node train.js --lr 3", or "fn trainer(args sha256:…)" for a function. */
  readonly entrypoint: string;
  /** What each replica asked for, as JobInfo.request. */
  readonly resources: string;
  readonly replicas: number;
  readonly processesPerTask: number;
  /** Each env var's value's digest, by name. */
  readonly envVars: Readonly<Record<string, string>>;
  /** workspace, npm packages and a digest of the setup scripts. */
  readonly environment: string;
}

const digest = (value: string | Uint8Array) => `sha256:${createHash("sha256").update(value).digest("hex").slice(0, 16)}`;

export function fingerprint(job: CheckedRequest): RequestFingerprint {
  const { binary, args, callable, callableArgs } = job.entrypoint;
  const entrypoint = callable
    ? `function ${callable.name || "(anonymous)"}(args ${digest(encodeStandalone(callableArgs, `the arguments of ${callable.name || "the job's function"}`))})`
    : [binary!, ...args].join(" ");
  const envVars = Object.fromEntries(Object.entries(job.envVars).map(([k, v]) => [k, digest(v)]));
  const environment = [
    `workspace ${job.workspace ?? "(the launcher's directory)"}`,
    `npmPackages [${job.npmPackages.join(", ")}]`,
    `setupScripts ${job.setupScripts.length ? digest(job.setupScripts.join("\n")) : "none"}`,
  ].join(", ");
  return { entrypoint, resources: job.request, replicas: job.replicas, processesPerTask: job.processesPerTask, envVars, environment };
}

/** What `now` asks for that `was` did not, one entry per field ("resources: was 1 cpu, now 2 cpu"); [] when they are the same. */
export function differences(was: RequestFingerprint, now: RequestFingerprint): string[] {
  const said = (v: string | number) => (typeof v === "string" && v.length > 120 ? `${v.slice(0, 119)}…` : String(v));
  const out: string[] = [];
  for (const field of ["entrypoint", "resources", "replicas", "processesPerTask", "environment"] as const)
    if (was[field] !== now[field]) out.push(`${field}: was ${said(was[field])}, now ${said(now[field])}`);
  const names = [...new Set([...Object.keys(was.envVars), ...Object.keys(now.envVars)])].sort();
  const changed = names.flatMap((n) =>
    was.envVars[n] === now.envVars[n] ? [] : [`${n} ${n in was.envVars ? (n in now.envVars ? "differs" : "removed") : "added"}`],
  );
  if (changed.length) out.push(`envVars: ${changed.join(", ")}`);
  return out;
}
