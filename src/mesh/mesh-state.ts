// What an ActorMesh handle holds: the part shared by every slice of a spawned
// mesh (MeshRef: its id, where each member is, the gate that holds sends until
// the class is found) and, per slice, its shape and endpoints (MeshState).
import type { RawExtent } from "../runtime/face/actors.ts";
import { EndpointImpl } from "./endpoint.ts";
import type { RankLocation } from "./errors.ts";
import type { MeshTarget } from "./mesh-target.ts";
import type { Extent } from "./shape/extent.ts";
import type { Shape } from "./shape/shape.ts";

/** The part of a mesh shared by all its slices. */
export interface MeshRef {
  readonly id: string;
  readonly name: string;
  readonly className: string;
  /** The extent the mesh was spawned with: member `i` is its rank `i`. */
  readonly extent: Extent;
  /** Proc address of each member (sparse in a received slice); `respawn` replaces a member's in place. */
  readonly addrs: string[];
  /** Bumped whenever `addrs` changes, so endpoints regroup the ranks by process. */
  version: number;
  /** On the spawning side: replaces failed members (`respawn`; respawn/rank-respawner.ts). */
  respawner?: { respawn(member: number, host?: unknown): Promise<void> };
  readonly Class: Function | null;
  readonly inflight: Map<number, number>;
  readonly gate: SendGate;
  readonly initialized: Promise<void>;
  /** Set by `stop()`: later calls reject with it at once. */
  stopped?: Error;
}

/** A message that cannot be sent (too big for FRAY_MAX_FRAME_BYTES, say) fails its own call, not the caller's process. */
function trySend(send: () => void, fail: (e: Error) => void): void {
  try {
    send();
  } catch (err) {
    fail(err as Error);
  }
}

/**
 * Holds sends until the spawner knows where the class is exported from (an
 * asynchronous check), then releases them in call order.
 */
export class SendGate {
  #queue: Array<[() => void, (e: Error) => void]> | null = [];
  #error: Error | null = null;

  static open(): SendGate {
    const gate = new SendGate();
    gate.#queue = null;
    return gate;
  }

  run(send: () => void, fail: (e: Error) => void): void {
    if (this.#error) fail(this.#error);
    else if (this.#queue) this.#queue.push([send, fail]);
    else trySend(send, fail);
  }

  release(): void {
    const queue = this.#queue ?? [];
    this.#queue = null;
    for (const [send, fail] of queue) trySend(send, fail);
  }

  fail(error: Error): void {
    this.#error = error;
    for (const [, fail] of this.#queue ?? []) fail(error);
    this.#queue = null;
  }
}

/** What an ActorMesh (one slice of a spawned mesh) knows: all its endpoints need. */
export class MeshState implements MeshTarget {
  readonly rawExtent: RawExtent;
  readonly sel: readonly number[] | undefined;
  readonly #endpoints = new Map<string, EndpointImpl<unknown[], unknown>>();

  constructor(
    readonly ref: MeshRef,
    readonly shape: Shape,
  ) {
    this.rawExtent = [shape.extent.labels, shape.extent.sizes];
    const { members } = shape;
    const whole = members.length === ref.extent.size && members.every((m, r) => m === r);
    this.sel = whole ? undefined : members;
  }

  get id(): string {
    return this.ref.id;
  }
  get className(): string {
    return this.ref.className;
  }
  get addrs(): readonly string[] {
    return this.ref.addrs;
  }
  get version(): number {
    return this.ref.version;
  }
  get inflight(): Map<number, number> {
    return this.ref.inflight;
  }
  get Class(): Function | null {
    return this.ref.Class;
  }
  get stopped(): Error | undefined {
    return this.ref.stopped;
  }

  whenSendable(send: () => void, fail: (e: Error) => void): void {
    this.ref.gate.run(send, fail);
  }

  /** Where `rank` of this slice is in the mesh that was spawned. */
  locate(rank: number): RankLocation {
    const member = this.shape.members[rank];
    return { rank: member, coords: this.ref.extent.coords(member), mesh: this.ref.name };
  }

  endpoint(name: string): EndpointImpl<unknown[], unknown> {
    let e = this.#endpoints.get(name);
    if (!e) this.#endpoints.set(name, (e = new EndpointImpl(this, name)));
    return e;
  }
}
