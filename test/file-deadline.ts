// Loaded into every test file's process by npm test (--import). Node 20 and 22 bound a whole test file
// by --test-timeout; Node 24 and later bound each test instead, and nothing bounds the file, so one
// whose process does not exit after its tests (a handle left open) would hold the run forever. This
// bounds the file again: past the timeout, its process says what is still open and exits with code 1.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

// The processes the tests start (workers inherit execArgv) must not load it: from their own working
// directory the relative path finds nothing, and they are not test files.
const self = fileURLToPath(import.meta.url);
const argv = process.execArgv;
for (let i = argv.length - 1; i >= 0; i--) {
  if (argv[i].startsWith("--import=") && resolve(argv[i].slice("--import=".length)) === self) argv.splice(i, 1);
  else if (argv[i] === "--import" && i + 1 < argv.length && resolve(argv[i + 1]) === self) argv.splice(i, 2);
}

const timeout = argv
  .map((arg) => /^--test-timeout=(\d+)$/.exec(arg)?.[1])
  .filter((ms) => ms !== undefined)
  .at(-1);
const testFile = process.env.NODE_TEST_CONTEXT?.startsWith("child") === true;
if (testFile && timeout !== undefined && Number(process.versions.node.split(".")[0]) >= 24) {
  setTimeout(() => {
    const open = process.getActiveResourcesInfo().join(", "); // this timer's Timeout among them
    process.stderr.write(`${process.argv[1]}: still running ${timeout} ms (--test-timeout) after it started; open: ${open}\n`);
    process.exit(1);
  }, Number(timeout)).unref();
}
