// Entry point of a local job's supervisor (local/supervisor.ts), started
// detached by LocalCluster.submit, so the job outlives whoever launched it.
//   node local-job-main.js JOB_DIR
import { superviseJob } from "./supervisor.ts";

const [dir] = process.argv.slice(2);
if (!dir) {
  console.error("fray: this is a local job's supervisor, started by the local cluster; it needs JOB_DIR");
  process.exit(2);
}
superviseJob(dir).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`fray: the supervisor of the job in ${dir} failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
