// Channels: `Channel.open<T>()` gives a Port to pass to actors anywhere and the
// PortReceiver that collects what they send, in order per sender.
import { openChannel, Port, PortReceiver } from "../runtime/face/actors.ts";
import { currentProc } from "../runtime/face/procs.ts";

export { Port, PortReceiver };

export class Channel {
  static open<T>(): [Port<T>, PortReceiver<T>] {
    return openChannel<T>(currentProc());
  }
}
