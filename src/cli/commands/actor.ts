// `fray actor list|kill`: the named actors of a cluster's namespace, from a shell.
import { Command } from "commander";
import type { ActorRow } from "../../cluster.ts";
import { clusterSubcommands, print, renderTable, type Common } from "./cluster-subcommand.ts";

const { sub, action } = clusterSubcommands("actor");

function table(actors: readonly ActorRow[]): string {
  if (actors.length === 0) return "no actors";
  return renderTable([
    ["NAME", "CLASS", "HOST", "PID", "STATE", "RESTARTS", "LIFETIME"],
    ...actors.map((a) => [a.name ?? "(unnamed)", a.className, a.host, String(a.pid), a.state, String(a.restarts), a.lifetime]),
  ]);
}

export function actorCommand(): Command {
  const actor = new Command("actor").description("the named and detached actors of a cluster's namespace");
  actor.addCommand(
    sub("list", "list the actors: name, class, host, pid, state, restarts, lifetime").action(
      action(async (cluster, o: Common) => {
        const actors = await cluster.listActors();
        print(o.json, actors, table(actors));
      }),
    ),
  );
  actor.addCommand(
    sub("kill", "end a named actor (a detached one too) and free its name")
      .argument("<name>")
      .action(
        action(async (cluster, name: string) => {
          await cluster.killActor(name);
          console.log(`killed actor '${name}'`);
        }),
      ),
  );
  return actor;
}
