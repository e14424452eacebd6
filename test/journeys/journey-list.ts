// Every journey, the backends it runs on, and whether the chaos run (chaos/chaos-run.ts) runs it under faults.
export interface JourneySpec {
  /** Its program: test/journeys/<journey>.ts. */
  readonly journey: string;
  readonly kinds: readonly string[];
  /** Arguments after the backend, by backend. */
  readonly args?: Readonly<Record<string, readonly string[]>>;
  /** Whether it survives the chaos run's faults with exact results (it retries what a fault can break). */
  readonly underChaos: boolean;
}

export const JOURNEYS: readonly JourneySpec[] = [
  { journey: "sweep", kinds: ["threads", "processes", "mesh"], underChaos: true },
  { journey: "serving", kinds: ["threads", "processes", "mesh"], underChaos: true },
  { journey: "shuffle", kinds: ["threads", "processes", "mesh"], underChaos: true },
  { journey: "dp-training", kinds: ["mesh"], underChaos: true },
  // Cluster jobs on this machine: faults hit the jobs' workers (their tasks retry) and the namespace service (started
  // again); a job's own program, like a journey's, is the driver, and is left alone.
  { journey: "rl-jobs", kinds: ["local"], underChaos: true },
  // 10,000 units where workers are processes (the costliest to leak from), fewer on the others.
  {
    journey: "long-driver",
    kinds: ["threads", "processes", "mesh"],
    args: { threads: ["3000"], processes: ["10000"], mesh: ["3000"] },
    underChaos: false,
  },
];
