// The runtime's face for the worker threads fray starts: hooks an upper layer adds to each as it starts
// (entries of its workerData, a call after each post to it), and, in a thread, what those gave it and
// what its transport to its parent tells of itself.
export { onThreadSpawn, type ThreadSpawn } from "../hosts/thread-spawn.ts";
export { parentLink, type ParentLink, type ParentPort } from "../proc/parent-link.ts";
