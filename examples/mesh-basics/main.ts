// Monarch's ping-pong and the rest of a mesh's basics: spawn, the four ways to
// call a mesh (call, broadcast, stream, choose), slicing, ports, and supervision:
// a player killed with SIGKILL is respawned by the actor that owns it.
//   npx tsx examples/mesh-basics/main.ts [players=4]
import { Channel, thisHost, thisProc } from "fray/mesh";
import { Coach, Player } from "./players.js";

const size = Number(process.argv[2] ?? 4);
if (!Number.isInteger(size) || size < 2) throw new RangeError(`the number of players must be an integer of at least 2, got ${process.argv[2]}`);

// spawn: `size` worker processes (extent {players: size}), one Player in each.
const procs = thisHost().spawnProcs({ players: size });
const players = procs.spawn("players", Player);
await players.initialized;
console.log(`spawn:     ${size} players in processes ${procs.pids.join(", ")}`);

// call: every rank answers; the answers come back as a ValueMesh, in rank order.
const pongs = await players.ping.call("the client");
console.log(`call:      ${pongs.values().join("; ")}`);

// broadcast: fire and forget. Calls from one sender run in order, so the score() after it sees it.
players.hit.broadcast();
console.log(`broadcast: scores after one hit each: [${(await players.score.call()).values().join(", ")}]`);

// stream: every rank answers, yielded as they arrive.
const arrived: number[] = [];
for await (const rank of players.whoami.stream()) arrived.push(rank);
console.log(`stream:    ${arrived.length} answers, in arrival order: ${arrived.join(", ")}`);

// choose: one rank per call, the one with the fewest calls in flight.
const chosen = await Promise.all(Array.from({ length: 2 * size }, () => players.whoami.choose()));
const perRank = chosen.reduce((n, r) => ((n[r] = (n[r] ?? 0) + 1), n), {} as Record<number, number>);
console.log(`choose:    ${chosen.length} calls went to ranks ${JSON.stringify(perRank)}`);

// slicing: a slice is a mesh of the ranks it selects; an index removes the dimension, a range keeps it.
const last = players.slice({ players: size - 1 });
const firstTwo = players.slice({ players: { start: 0, stop: 2 } });
console.log(
  `slice:     {players: ${size - 1}} is rank ${await last.whoami.callOne()}; ` +
    `{players: 0..1} has ${firstTwo.size} ranks: [${(await firstTwo.whoami.call()).values().join(", ")}]`,
);

// ping-pong: actors call actors. Player 0 pings player 1 straight from its process, 10 times.
const volleys = 10;
const lastPong = await players.slice({ players: 0 }).rally.callOne(players.slice({ players: 1 }), volleys);
console.log(`ping-pong: ${volleys} volleys, the last answer: ${lastPong}`);

// ports: a Channel's Port goes to the actors, its receiver stays here; an actor may send on it any number of times.
const [port, progress] = Channel.open<string>();
const laps = 3;
players.warmUp.broadcast(laps, port);
const reports: string[] = [];
for (let i = 0; i < size * laps; i++) reports.push(await progress.recv());
progress.close();
console.log(
  `port:      ${reports.length} messages, the last from each player: ${reports
    .filter((r) => r.endsWith(`lap ${laps}`))
    .sort()
    .join(", ")}`,
);
await procs.stop();

// supervision: a Coach actor (in this process) owns a team in processes of its own; its supervise()
// respawns a player that dies. Kill one with SIGKILL and the team plays on.
const [newsPort, news] = Channel.open<string>();
const coach = thisProc().spawn("coach", Coach, newsPort);
await coach.form.callOne(size);
console.log(`supervise: scores after practice: [${(await coach.practice.callOne()).join(", ")}]`);
const victim = size - 2;
const pids = await coach.pids.callOne();
process.kill(pids[victim], "SIGKILL");
console.log(`supervise: killed player ${victim} (pid ${pids[victim]}) with SIGKILL`);
console.log(`coach:     ${await news.recv()}`);
console.log(`coach:     ${await news.recv()}`);
news.close();
const after = await coach.pids.callOne();
console.log(`respawn:   player ${victim} answers from pid ${after[victim]}; scores after practice: [${(await coach.practice.callOne()).join(", ")}]`);
await coach.disband.callOne();
await coach.stop();
