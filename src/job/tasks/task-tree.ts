// Which task submitted which, so a recursive cancel reaches the tasks a task
// started, and theirs. Only nested tasks are recorded, and only while their
// parent runs: a task that ended is not cancelled, nor its children through it.
export class TaskTree {
  readonly #children = new Map<string, string[]>();

  add(parent: string, child: string): void {
    const siblings = this.#children.get(parent);
    if (siblings) siblings.push(child);
    else this.#children.set(parent, [child]);
  }

  /** The tasks `parent` submitted, forgotten here. */
  take(parent: string): readonly string[] {
    const children = this.#children.get(parent);
    if (!children) return [];
    this.#children.delete(parent);
    return children;
  }

  /** How many tasks have children recorded (a probe for tests: it stays bounded). */
  get size(): number {
    return this.#children.size;
  }

  ended(task: string): void {
    if (this.#children.size !== 0) this.#children.delete(task);
  }
}
