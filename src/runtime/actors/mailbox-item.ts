// What an actor's mailbox holds (actor-cell.ts), and the states an actor goes through.
import type { Frame } from "../../wire/frame.ts";
import type { Call } from "../base/messages.ts";
import type { MeshFailure } from "../supervision/supervision.ts";

export type ActorState = "constructing" | "ready" | "failed" | "dead" | "stopped";

/** A call to run, a failure of a mesh the actor owns to handle, or a stop. */
export type MailboxItem =
  | { readonly t: "call"; readonly call: Call; readonly rank: number; readonly frame: Frame; readonly first: boolean }
  | { readonly t: "supervise"; readonly failure: MeshFailure }
  | { readonly t: "stop"; readonly done: () => void };
