// fray/cluster's `local` backend: the parity suite, and what only a local machine shows —
// jobs that outlive their launcher, live log streaming, SIGKILL after the grace period.
import { clusterParitySuite } from "./cluster-suite.ts";

clusterParitySuite("local");
