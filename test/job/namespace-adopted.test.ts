// A namespace started again (a cluster's service after it died) registers the actors other processes host (a
// client's, Client.hostActor) as the namespace before it had them, before it answers its first call: a job
// that asks for one by name then gets that actor, never a new one in the namespace.
import assert from "node:assert/strict";
import { it } from "node:test";
import { kMesh, type ActorMesh } from "../../src/mesh/actor-mesh.ts";
import { thisProc } from "../../src/mesh/host-mesh.ts";
import type { AdoptedActorRecord, HostedActorInfo, HostedActorRow, HostedActorSpec } from "../../src/job/namespace/hosted-actor.ts";
import { NamespaceActor } from "../../src/job/namespace/namespace-actor.ts";
import { Board } from "../fixtures/client-actors.ts";

it("a namespace made with adopted records answers its first call by name with the actor they name, in its own process", async () => {
  const board = thisProc().spawn("adopted-board", Board);
  await board.initialized;
  await (board as unknown as ActorMesh<Board>).post.callOne("kept");
  const spec: HostedActorSpec = {
    url: new URL("../fixtures/client-actors.ts", import.meta.url).href,
    exportName: "Board",
    args: [],
    options: { name: "board" },
    owner: null,
  };
  const record: AdoptedActorRecord = {
    spec,
    className: "Board",
    addr: board[kMesh].addrs[0],
    meshId: board[kMesh].id,
    place: { pid: process.pid, host: "here" },
  };
  const namespace = thisProc().spawn("restarted-namespace", NamespaceActor, null, [record]);
  try {
    // The very first call: a job's createActor(Board, [], { name: "board", getIfExists: true }).
    const found = (await namespace.create.callOne({ ...spec, options: { name: "board", getIfExists: true } })) as HostedActorInfo;
    assert.equal(found.key, "board");
    assert.deepEqual(await (found.mesh as unknown as ActorMesh<Board>).read.callOne(), ["kept"], "the adopted actor, not a new one");
    const rows = (await namespace.list.callOne()) as HostedActorRow[];
    assert.deepEqual(
      rows.map((r) => [r.name, r.pid]),
      [["board", process.pid]],
    );
  } finally {
    await namespace.stop();
    await board.stop();
  }
});
