// The actors of the mesh-basics example. Exported, so the worker processes can
// load them: no registration step.
import { Actor, context, thisHost, type ActorMesh, type MeshFailure, type Port, type ProcMesh } from "fray/mesh";

/** One player of the mesh: answers pings and counts the hits it took. */
export class Player extends Actor {
  hits = 0;
  /** This actor's rank in the mesh it was spawned as (not in the slice a call went through). */
  readonly me = context().actorInstance.rank.rank;

  ping(from: string): string {
    this.hits++;
    return `pong #${this.hits} from player ${this.me} to ${from}`;
  }

  hit(): void {
    this.hits++;
  }

  score(): number {
    return this.hits;
  }

  whoami(): number {
    return this.me;
  }

  pid(): number {
    return process.pid;
  }

  /** Ping-pong between actors: this player pings `partner` `volleys` times, straight from its own process. */
  async rally(partner: ActorMesh<Player>, volleys: number): Promise<string> {
    let last = "";
    for (let i = 0; i < volleys; i++) last = await partner.ping.callOne(`player ${this.me}`);
    return last;
  }

  /** Reports through a port rather than a return value: one message per lap, as it goes. */
  warmUp(laps: number, progress: Port<string>): void {
    for (let lap = 1; lap <= laps; lap++) progress.send(`player ${this.me} lap ${lap}`);
  }
}

/** Owns a team of players in processes of its own, and puts back any player that dies. */
export class Coach extends Actor {
  procs: ProcMesh | null = null;
  team: ActorMesh<Player> | null = null;

  constructor(private readonly news: Port<string>) {
    super();
  }

  async form(size: number): Promise<void> {
    this.procs = thisHost().spawnProcs({ players: size }, { name: "team" });
    this.team = this.procs.spawn("team", Player);
    await this.team.initialized;
  }

  /** Every player's pid, through the owner's own handle of the team (which follows respawns). */
  async pids(): Promise<number[]> {
    return (await this.team!.pid.call()).values();
  }

  /** One hit for every player; their scores after it. */
  async practice(): Promise<number[]> {
    this.team!.hit.broadcast();
    return (await this.team!.score.call()).values();
  }

  /** Called once per failed rank of a mesh this actor spawned; true: handled here. */
  async supervise(failure: MeshFailure): Promise<boolean> {
    this.news.send(`rank ${failure.rank} of ${failure.meshName} failed: ${failure.cause.message}`);
    await this.team!.respawn(failure.rank); // a new process at the same place; the constructor runs again
    this.news.send(`rank ${failure.rank} of ${failure.meshName} respawned`);
    return true;
  }

  async disband(): Promise<void> {
    await this.procs?.stop();
  }
}
