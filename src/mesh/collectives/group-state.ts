// What a rank keeps about each of its collective groups between calls (its
// call count, the paths to its peers, its shared-memory outboxes), until its
// actor stops or dies; only the most recently used groups keep their outboxes
// (FRAY_COLLECTIVE_OUTBOX_GROUPS).
import { config } from "../settings.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { COLLECTIVES, joinGroup, leaveGroup, type Outbox } from "../../runtime/face/collectives.ts";
import type { PiecePath } from "../../runtime/face/buffers.ts";
import type { Group } from "./collective-group.ts";

export interface GroupState {
  /**
   * The quits of the group's members heard of so far (collective-quits.ts): tags carry it, and a rank starts the
   * group afresh (call count 0, paths to learn again) when it changes, as each of its peers does.
   */
  generation: number;
  /** Calls made so far in this generation (tags carry it, so successive calls never mix their pieces). */
  seq: number;
  /** How pieces travel to each member, learnt in the group's first call (until then, and if it failed: frames). */
  paths: PiecePath[] | null;
  /**
   * Two outboxes, used by even and odd calls. Peers read call k's outbox during call k; call k + 2 may
   * rewrite it once call k + 1 succeeded, as every peer then sent its first piece of call k + 1, which it
   * does only after its call k ended (a rank's calls on a group run one at a time).
   */
  outboxes: [Outbox | null, Outbox | null];
  lastOk: boolean;
  /** Why this rank's shared memory failed it (ENOSPC, EACCES) in this group: its pieces go in frames since. */
  refused: string | null;
  /** Whether a call on the group is running on this rank. */
  busy: boolean;
  /** The end of this rank's latest call on the group: the next one starts after it. */
  tail: Promise<void>;
}

/** Each rank's groups, least recently used first; a group is forgotten when its rank's actor stops or dies. */
const states = new Map<string, GroupState>();

/** The prefix of every tag of `group`'s calls in generation `generation`. */
export const tagPrefix = (group: Group, generation: number) => `${group.key}~${generation}#`;

/** The state of the calling rank's `group`, made on its first call and then the most recently used. */
export function stateOf(group: Group): GroupState {
  const slot = `${group.key}@${group.me}`;
  let state = states.get(slot);
  if (!state) {
    state = { generation: 0, seq: 0, paths: null, outboxes: [null, null], lastOk: true, refused: null, busy: false, tail: Promise.resolve() };
    joinGroup(group.key);
    currentProc()
      .get(COLLECTIVES)
      .holdUntilGone(group.actor, () => forgetGroup(slot, group));
  }
  states.delete(slot);
  states.set(slot, state);
  return state;
}

/** The group's members' quits changed: every rank of it starts the group afresh, dropping what is left of the old generation. */
export function startAfresh(state: GroupState, group: Group, generation: number): void {
  currentProc().get(COLLECTIVES).abandon(tagPrefix(group, state.generation), `>${group.me}`); // late pieces of it too
  state.generation = generation;
  state.seq = 0;
  state.paths = null;
  state.lastOk = false; // a peer may still read the old outboxes: the next call takes fresh ones
}

export function closeOutboxes(state: GroupState): void {
  for (const outbox of state.outboxes) outbox?.close();
  state.outboxes = [null, null];
}

/** A rank's actor stopped or died: once its running call (if any) has ended, its group's outboxes and pieces go. */
function forgetGroup(slot: string, group: Group): void {
  const state = states.get(slot);
  if (!state) return;
  states.delete(slot);
  void state.tail.then(() => {
    closeOutboxes(state);
    leaveGroup(group.key);
    currentProc().get(COLLECTIVES).forget(`${group.key}~`, `>${group.me}`);
  });
}

/**
 * Frees the outboxes of the least recently used idle groups beyond FRAY_COLLECTIVE_OUTBOX_GROUPS (their next
 * call makes new ones). A peer still reading this rank's last piece of such a group finds it gone and says so.
 */
export function boundOutboxes(): void {
  let over = -config.collectiveOutboxGroups;
  for (const state of states.values()) if (state.outboxes[0] || state.outboxes[1]) over++;
  for (const state of states.values()) {
    if (over <= 0) return;
    if (state.busy || !(state.outboxes[0] || state.outboxes[1])) continue;
    closeOutboxes(state);
    over--;
  }
}
