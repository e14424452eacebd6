// The serving journey's model replica (serving.ts): it streams a request's tokens, each a little synchronous
// work, as a model's decode loop does.
export class ModelReplica {
  async *generate(prompt: string, tokens: number): AsyncGenerator<string> {
    for (let i = 0; i < tokens; i++) {
      const until = performance.now() + 2; // one decode step
      while (performance.now() < until);
      yield `${prompt}:${i}`;
    }
  }

  pid(): number {
    return process.pid;
  }
}
