// The runtime's face for a collective's exchange: the inbox its pieces arrive in and the same-host
// outboxes (shared memory) they go out through. Imported by what a process loads on its first
// collective, not at start.
export { COLLECTIVES, sendCollectivePiece } from "../bulk/collective-inbox.ts";
export { askAddrs, COLLECTIVE_QUITS, type Quit } from "../bulk/collective-quits.ts";
export {
  canReadOutboxesOf,
  hearOutboxes,
  hostIdentity,
  isSabRef,
  isShmRef,
  joinGroup,
  leaveGroup,
  OpenedOutboxes,
  Outbox,
  pathTo,
  sabView,
  type HostIdentity,
  type ShmRef,
} from "../bulk/collective-outbox.ts";
