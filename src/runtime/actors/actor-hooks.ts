// The hooks of an actor's own class that the runtime calls outside its endpoints: `supervise(failure)`,
// handed a failure of a mesh the actor owns, and `cleanup(error?)`, when it stops or dies, bounded by
// FRAY_CLEANUP_TIMEOUT_MS. Each runs in the actor's message context, as its endpoints do.
import { config, settingName } from "../base/config.ts";
import { SupervisionError } from "../base/errors.ts";
import { messageContext, type ActorIdentity, type MessageContext } from "../proc/context.ts";
import type { MeshFailure } from "../supervision/supervision.ts";

/** The hooks an actor's class may have. */
export interface SupervisingActor {
  supervise?(failure: MeshFailure): unknown;
  cleanup?(error?: Error): unknown;
}

const ownContext = (identity: ActorIdentity): MessageContext => ({ actor: identity, rank: identity.rank, extent: identity.extent });

/** Hands `failure` to the actor's `supervise()`: null when it handled it, else the error the actor dies of (none, falsy, or it threw). */
export async function superviseFailure(instance: SupervisingActor, identity: ActorIdentity, failure: MeshFailure): Promise<Error | null> {
  let handled: unknown = false;
  try {
    if (typeof instance.supervise === "function") handled = await messageContext.run(ownContext(identity), () => instance.supervise!(failure));
  } catch (err) {
    return new SupervisionError(`supervise() of ${identity.className} threw while handling: ${failure.report}`, { cause: err });
  }
  return handled ? null : new SupervisionError(`unhandled: ${failure.report}`, { cause: failure.cause });
}

/** Runs the actor's `cleanup(error?)` for at most FRAY_CLEANUP_TIMEOUT_MS; what it throws, or its overrunning, is logged. */
export async function runCleanup(instance: SupervisingActor, identity: ActorIdentity, error?: Error): Promise<void> {
  const who = `${identity.actorId} (${identity.className})`;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      console.error(`fray: cleanup() of ${who} did not finish within ${config.cleanupTimeoutMs} ms (${settingName("cleanupTimeoutMs")}); going on without it`);
      resolve();
    }, config.cleanupTimeoutMs);
  });
  try {
    await Promise.race([messageContext.run(ownContext(identity), () => instance.cleanup!(error)), timeout]);
  } catch (err) {
    console.error(`fray: cleanup() of ${who} threw:`, err);
  } finally {
    clearTimeout(timer);
  }
}
