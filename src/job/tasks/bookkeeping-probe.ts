// Internal, for tests (src/job.ts does not export it): how many entries the task
// tree and the cancel bookkeeping of this process's open jobs hold, so a soak
// test can show they stay bounded in a long-lived driver.

/** Each open job's scheduler, with what reads its counts; a scheduler leaves when its job closes. */
export const BOOKKEEPING = new Map<object, () => { tree: number; cancelledEarly: number }>();

export function bookkeepingProbe(): { tree: number; cancelledEarly: number } {
  let tree = 0;
  let cancelledEarly = 0;
  for (const counts of BOOKKEEPING.values()) {
    const { tree: t, cancelledEarly: c } = counts();
    tree += t;
    cancelledEarly += c;
  }
  return { tree, cancelledEarly };
}
