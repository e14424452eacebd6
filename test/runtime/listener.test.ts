// A Proc's Unix listener: its socket file appears at its path only once it
// listens (bound beside it, then linked into place), so a dialer never finds a
// file nobody listens on yet; a path in use is refused as before; closing it
// removes the file.
import assert from "node:assert/strict";
import { once } from "node:events";
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, watch } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { listen } from "../../src/runtime/net/listener.ts";

const handlers = { accepted: () => {}, refused: () => {} };

it("a Unix listener is a listening socket at its path, with nothing left beside it; a second listener there is refused naming the address", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "fray-listener-test-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "p.sock");
  await listen(`unix:${path}`, { path }, false, handlers);
  assert.ok(lstatSync(path).isSocket());
  assert.deepEqual(readdirSync(dir), ["p.sock"]);
  const socket = connect(path);
  await once(socket, "connect"); // somebody listens there
  socket.destroy();
  await assert.rejects(listen(`unix:${path}`, { path }, false, handlers), /cannot listen on unix:\S+p\.sock: .*EADDRINUSE.*pick another address/);
  assert.deepEqual(readdirSync(dir), ["p.sock"], "the refused listener left nothing");
});

it("a Unix listener that closes removes its socket file", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "fray-listener-test-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "q.sock");
  const closing = new AbortController();
  await listen(`unix:${path}`, { path, signal: closing.signal }, false, handlers);
  assert.ok(existsSync(path));
  const gone = new Promise<void>((resolve) => {
    const watcher = watch(dir, () => {
      if (existsSync(path)) return;
      watcher.close();
      resolve();
    });
  });
  closing.abort();
  await gone;
  assert.deepEqual(readdirSync(dir), []);
});
