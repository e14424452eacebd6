// Task functions the job benchmarks run, as a user of the compiled package writes them.
export function add(a, b) {
  return a + b;
}

/** Reads every 4096th element, so the array must really have arrived. */
export function checksum(array) {
  let sum = 0;
  for (let i = 0; i < array.length; i += 4096) sum += array[i];
  return [array.length, sum];
}
