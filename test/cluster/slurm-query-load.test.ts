// How much a Slurm cluster asks of Slurm's controller while many jobs are waited on: poll, wait, monitor and
// the dashboard share one cache per cluster, whose queries name only the cluster's own job ids and back off
// while nothing changes. Slurm here is a stand-in on PATH (sbatch, squeue, scontrol, scancel as small bash
// scripts) that logs each call with its arguments and answers for the ids asked: the real one is heavy
// (test/cluster/slurm.test.ts runs the backend against it).
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { createCluster, Entrypoint, type Cluster } from "../../src/cluster.ts";
import { clusterSources } from "../../src/dashboard.ts";

const JOBS = 50;
const WINDOW_MS = 3_000;
const FIRST_ID = 5001;

/** The stand-in's scripts: each logs "<command> <args>" to `calls`; jobs answer with the state in `state`. */
function standIn(bin: string): void {
  const head = `#!/bin/bash\nd=${JSON.stringify(bin)}\necho "$(basename "$0") $*" >> "$d/calls"\n`;
  const scripts: Record<string, string> = {
    // Reads the script, answers the next id (launches come one at a time).
    sbatch: `cat > /dev/null\nn=$(( $(cat "$d/next") + 1 ))\necho $n > "$d/next"\necho "$n"\n`,
    scancel: "",
    // squeue --jobs=ID,… --Format=Field:size|,… : one line per known id asked for, each field followed by "|".
    squeue: `ids=""; fmt=""
for a in "$@"; do case "$a" in --jobs=*) ids="\${a#--jobs=}";; --Format=*) fmt="\${a#--Format=}";; esac; done
[ -z "$ids" ] && ids=$(seq -s, ${FIRST_ID} "$(cat "$d/next")")
state=$(cat "$d/state"); last=$(cat "$d/next")
IFS=, read -ra idl <<< "$ids"; IFS=, read -ra fields <<< "$fmt"
for id in "\${idl[@]}"; do
  [ "$id" -gt "$last" ] && continue
  line=""
  for f in "\${fields[@]}"; do
    case "\${f%%:*}" in JobID) v=$id;; State) v=$state;; Reason) v=None;; exit_code) v=0;; NumTasks) v=1;; RestartCnt) v=0;; *) v="?";; esac
    line+="$v|"
  done
  echo "$line"
done
`,
    // scontrol show job -o [ID]: one record per line, of that job or of every job.
    scontrol: `state=$(cat "$d/state"); last=$(cat "$d/next"); ids="\${4:-}"
[ -z "$ids" ] && ids=$(seq -s, ${FIRST_ID} "$last")
IFS=, read -ra idl <<< "$ids"
for id in "\${idl[@]}"; do echo "JobId=$id JobName=x JobState=$state Reason=None ExitCode=0:0 Restarts=0 NumTasks=1"; done
`,
  };
  for (const [name, body] of Object.entries(scripts)) {
    writeFileSync(join(bin, name), head + body);
    chmodSync(join(bin, name), 0o755);
  }
  writeFileSync(join(bin, "next"), String(FIRST_ID - 1));
  writeFileSync(join(bin, "state"), "RUNNING");
  writeFileSync(join(bin, "calls"), "");
}

describe("a Slurm cluster's queries of Slurm (a counting squeue and scontrol stand-in)", () => {
  const dir = mkdtempSync(join(tmpdir(), "fray-slurm-queries-"));
  const bin = join(dir, "bin");
  const saved = { PATH: process.env.PATH, max: process.env.FRAY_SLURM_QUERY_MAX_MS };
  let cluster: Cluster;

  before(() => {
    mkdirSync(bin);
    standIn(bin);
    process.env.PATH = `${bin}${delimiter}${process.env.PATH}`;
    process.env.FRAY_SLURM_QUERY_MAX_MS = "2000"; // so the jobs' end is seen soon after the stand-in says so
    cluster = createCluster(`slurm?dir=${join(dir, "cluster")}`);
  });

  after(async () => {
    await cluster?.stopNamespace();
    process.env.PATH = saved.PATH;
    if (saved.max === undefined) delete process.env.FRAY_SLURM_QUERY_MAX_MS;
    else process.env.FRAY_SLURM_QUERY_MAX_MS = saved.max;
    rmSync(dir, { recursive: true, force: true });
  });

  it(`${JOBS} jobs waited on, followed and shown on a dashboard cost a few queries a second, each naming only the cluster's jobs`, async (t) => {
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) ids.push(await cluster.launch({ name: `job-${i}`, entrypoint: Entrypoint.fromBinary("true") }));
    assert.deepEqual(
      ids,
      Array.from({ length: JOBS }, (_, i) => String(FIRST_ID + i)),
    );
    // Another user's job, which this cluster must not ask about.
    writeFileSync(join(bin, "next"), String(FIRST_ID + JOBS));

    const callsFile = join(bin, "calls");
    const calls = () => readFileSync(callsFile, "utf8").split("\n").filter(Boolean);
    const before = calls().length;
    const waits = Promise.all(ids.map((id) => cluster.wait(id, { raiseOnFailure: false })));
    const followed = (async () => {
      let lines = 0;
      for await (const line of cluster.monitor(ids[0])) lines += line ? 1 : 0;
      return lines;
    })();
    // A dashboard page refreshing its jobs panel every 100 ms.
    const jobsPanel = clusterSources(cluster).jobs!;
    let refreshing = true;
    const dashboard = (async () => {
      while (refreshing) {
        const rows = await jobsPanel();
        assert.equal(rows.length, JOBS);
        await sleep(100);
      }
    })();
    await sleep(WINDOW_MS); // the window the calls are counted over
    const during = calls().slice(before);

    writeFileSync(join(bin, "state"), "CANCELLED");
    const infos = await waits;
    refreshing = false;
    await Promise.all([dashboard, followed]);
    assert.deepEqual(new Set(infos.map((i) => i.status)), new Set(["stopped"]));

    const queries = during.filter((c) => /^(squeue|scontrol) /.test(c));
    t.diagnostic(`${queries.length} queries of Slurm in ${WINDOW_MS} ms with ${JOBS} jobs waited on`);
    // One query per FRAY_SLURM_QUERY_MS (1 s) at most, fewer as it backs off; without the cache each handle asks on its own.
    assert.ok(queries.length <= WINDOW_MS / 1000 + 2, `${queries.length} queries of Slurm in ${WINDOW_MS} ms:\n${queries.slice(0, 10).join("\n")}`);
    for (const query of queries) {
      const named = /--jobs=(\S+)/.exec(query)?.[1].split(",") ?? [];
      assert.ok(named.length > 0, `a query of every job on the cluster: ${query}`);
      assert.ok(
        named.every((id) => ids.includes(id)),
        `a query naming a job that is not this cluster's: ${query}`,
      );
    }
  });
});
