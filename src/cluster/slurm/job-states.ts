// What Slurm says about a cluster's jobs, asked once for everyone in this process that wants to know —
// poll(), wait() and monitor() of every handle, listJobs(), launches and the dashboard — so the controller
// sees one `squeue` per FRAY_SLURM_QUERY_MS at most, naming only the jobs asked about that have not ended
// (never every job on the cluster), and fewer while nothing changes: the time between queries doubles up to
// FRAY_SLURM_QUERY_MAX_MS and falls back at a change, a new job, or a scancel.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { config } from "../settings.ts";
import { parseSqueue, SQUEUE_FORMAT, type SlurmJobState } from "./state.ts";

const run = promisify(execFile);
/** Ids per squeue (a first look at a long history of jobs is split). */
const IDS_PER_QUERY = 500;

/** One per cluster state directory: every SlurmCluster of this process made for it shares its answers. */
const byRoot = new Map<string, SlurmJobStates>();

export class SlurmJobStates {
  /** The shared one of the cluster whose state lives in `root`. */
  static of(root: string): SlurmJobStates {
    let states = byRoot.get(root);
    if (!states) byRoot.set(root, (states = new SlurmJobStates()));
    return states;
  }

  /** Every job asked about here. */
  readonly #wanted = new Set<string>();
  /** The latest answer per job asked about (undefined: Slurm does not know it, or no longer). */
  readonly #known = new Map<string, SlurmJobState | undefined>();
  /** Jobs that ended, by Slurm's word and Fray's: their last answer stands and they are not asked about again. */
  readonly #settled = new Set<string>();
  #askedAt = -Infinity;
  #intervalMs: number | null = null;
  #inFlight: Promise<void> | null = null;
  /** Counts changed() calls: answers to a query that started before one are not taken as fresh. */
  #changes = 0;

  /** Slurm's record of each of `ids`, no older than the current interval (ids seen for the first time are asked now). */
  async states(ids: readonly string[]): Promise<SlurmJobState[]> {
    const fresh = () => ids.every((id) => this.#settled.has(id) || (this.#known.has(id) && Date.now() - this.#askedAt < this.#interval()));
    while (!fresh()) {
      for (const id of ids) this.#wanted.add(id);
      this.#inFlight ??= this.#query().finally(() => (this.#inFlight = null));
      await this.#inFlight;
    }
    return ids.flatMap((id) => this.#known.get(id) ?? []);
  }

  /** When the latest answers were asked for (ms since the epoch). */
  get askedAt(): number {
    return this.#askedAt;
  }

  /** The job ended (its status is final and Slurm no longer runs it): its last answer is kept, and it is not asked about again. */
  settle(id: string): void {
    this.#settled.add(id);
  }

  /** Something was done to the jobs (sbatch, scancel): the next look asks Slurm, and the interval starts again from its least. */
  changed(): void {
    this.#askedAt = -Infinity;
    this.#intervalMs = null;
    this.#changes++;
  }

  #interval(): number {
    return this.#intervalMs ?? config.slurmQueryMs;
  }

  async #query(): Promise<void> {
    // Asked for the jobs known when it starts: one that joins meanwhile waits for the next.
    const ids = [...this.#wanted].filter((id) => !this.#settled.has(id));
    const startedAt = Date.now();
    const changes = this.#changes;
    const answers = new Map<string, SlurmJobState>();
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) for (const s of await squeue(ids.slice(i, i + IDS_PER_QUERY))) answers.set(s.jobId, s);
    let changed = false;
    for (const id of ids) {
      const [before, now] = [this.#known.get(id), answers.get(id)];
      if (before?.state !== now?.state || before?.reason !== now?.reason || before?.restarts !== now?.restarts) changed = true;
      this.#known.set(id, now);
    }
    if (changes !== this.#changes) return; // asked before a sbatch or scancel: the next look asks again
    const least = config.slurmQueryMs;
    this.#intervalMs = changed ? least : Math.min(Math.max(least, this.#interval() * 2), Math.max(least, config.slurmQueryMaxMs));
    this.#askedAt = startedAt;
  }
}

/** Slurm's record of each of `ids` it knows (all states: ended ones too, until Slurm forgets them after MinJobAge). */
async function squeue(ids: readonly string[]): Promise<SlurmJobState[]> {
  const args = ["--noheader", "--states=all", `--jobs=${ids.join(",")}`, `--Format=${SQUEUE_FORMAT}`];
  try {
    const { stdout } = await run("squeue", args);
    return parseSqueue(stdout);
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? "";
    // One id Slurm no longer knows: squeue says so (of several, it leaves those out).
    if (/Invalid job id/i.test(stderr)) return [];
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new Error("cannot run squeue: is Slurm installed and on PATH?", { cause: err });
    throw new Error(`squeue ${args.join(" ")} failed: ${stderr.trim() || (err as Error).message}`, { cause: err });
  }
}
