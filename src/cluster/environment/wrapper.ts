// The POSIX shell script that wraps a replica's command when its job has
// npmPackages or setupScripts; the replica loop runs it for every process of
// every attempt:
//   sh -c ENVIRONMENT_WRAPPER fray-env SETUP_FILE NPM_DIR REGISTER_URL CMD ARGS...
// With NPM_DIR, the npm environment's .bin goes first on PATH, its node_modules
// onto NODE_PATH (for require) and its resolve hook into NODE_OPTIONS (for
// import), all after what the replica already has, so the job's own packages win.
// With SETUP_FILE, its lines run with `sh -e` in the working directory; their
// output goes to the replica's log and to SETUP_FILE's -R-P.log. A failing line
// ends the attempt with its exit code, and an "error" record in the exit file
// (as a job function's error) says "setup script failed (exit N): <last output lines>".
// Environment changes are at run time, not launch, so PATH is the node's, not the launcher's.
import { settingName } from "../settings.ts";

const TAIL_LINES = 5;
const LINE_CHARS = 200;

export const ENVIRONMENT_WRAPPER = `setup=$1; npm_dir=$2; register_url=$3; shift 3
if [ -n "$npm_dir" ]; then
  PATH="$npm_dir/node_modules/.bin:$PATH"
  NODE_PATH="\${NODE_PATH:+$NODE_PATH:}$npm_dir/node_modules"
  NODE_OPTIONS="\${NODE_OPTIONS:+$NODE_OPTIONS }--import=$register_url"
  export PATH NODE_PATH NODE_OPTIONS
fi
if [ -n "$setup" ]; then
  out="\${setup%.sh}-$${settingName("replicaId")}-$${settingName("processId")}.log"
  rm -f "$out.rc"
  { /bin/sh -e "$setup" 2>&1; echo $? > "$out.rc"; } | tee "$out"
  rc=$(cat "$out.rc" 2>/dev/null); rc=\${rc:-1}; rm -f "$out.rc"
  if [ "$rc" -ne 0 ]; then
    # The last output lines as a JSON string: control characters dropped, quotes and backslashes escaped.
    tr -d '\\000-\\010\\013-\\037' < "$out" | awk -v rc="$rc" '
      { line = substr($0, 1, ${LINE_CHARS}); gsub(/\\\\/, "&&", line); gsub(/"/, "\\\\\\"", line); gsub(/\\t/, " ", line); if (line != "") lines[n++] = line }
      END { s = ""; for (i = (n > ${TAIL_LINES} ? n - ${TAIL_LINES} : 0); i < n; i++) s = s (s == "" ? "" : "\\\\n") lines[i]
            printf "error \\"setup script failed (exit %s)%s%s\\"\\n", rc, (s == "" ? "" : ": "), s }' >> "$${settingName("replicaExitFile")}"
    exit "$rc"
  fi
fi
exec "$@"`;

/** The argv that runs `command` wrapped: setupFile and npmDir may be "" (none). */
export function wrapCommand(command: readonly string[], setupFile: string, npm?: { dir: string; registerUrl: string }): string[] {
  return ["/bin/sh", "-c", ENVIRONMENT_WRAPPER, "fray-env", setupFile, npm?.dir ?? "", npm?.registerUrl ?? "", ...command];
}
