// The actors of the parameter-server example. The server keeps the weights and one
// gradient slot per worker, and hands out RemoteBuffers over them: the workers read the
// weights and write their gradients without the bytes passing through any mailbox.
import { Actor, context, RemoteBuffer, type ActorMesh } from "fray/mesh";
import { matmul, matmulTransposed, normals } from "./model.js";

const TEACHER_SEED = 1;
const NOISE = 0.1;

export class ParameterServer extends Actor {
  readonly weights: Float32Array;
  readonly slots: Float32Array[];
  readonly weightsBuffer: RemoteBuffer;
  readonly slotBuffers: RemoteBuffer[];

  constructor(inputs: number, outputs: number, workers: number) {
    super();
    this.weights = new Float32Array(inputs * outputs); // starts at zero
    this.slots = Array.from({ length: workers }, () => new Float32Array(inputs * outputs));
    this.weightsBuffer = new RemoteBuffer(this.weights);
    this.slotBuffers = this.slots.map((slot) => new RemoteBuffer(slot));
  }

  /** Worker `rank`'s handles: the weights to read, its gradient slot to write. */
  buffers(rank: number): { weights: RemoteBuffer; gradient: RemoteBuffer } {
    return { weights: this.weightsBuffer, gradient: this.slotBuffers[rank] };
  }

  /** One step of gradient descent with the workers' average gradient. */
  update(learningRate: number): void {
    const scale = learningRate / this.slots.length;
    for (const slot of this.slots) for (let i = 0; i < slot.length; i++) this.weights[i] -= scale * slot[i];
  }
}

/** One data-parallel worker with its own shard of the data, made here from a seed (as if read from disk). */
export class Worker extends Actor {
  readonly rank = context().actorInstance.rank.rank;
  readonly x: Float32Array;
  readonly y: Float32Array;
  remote: { weights: RemoteBuffer; gradient: RemoteBuffer } | null = null;

  constructor(
    readonly server: ActorMesh<ParameterServer>,
    readonly inputs: number,
    readonly outputs: number,
    readonly rows: number,
  ) {
    super();
    const teacher = normals(TEACHER_SEED, inputs * outputs, 1 / Math.sqrt(inputs));
    this.x = normals(1000 + this.rank, rows * inputs);
    this.y = matmul(this.x, teacher, rows, inputs, outputs);
    const noise = normals(2000 + this.rank, rows * outputs, NOISE);
    for (let i = 0; i < this.y.length; i++) this.y[i] += noise[i];
  }

  /** Pulls the weights, computes the loss and gradient on this shard, pushes the gradient; returns the loss (mean squared error). */
  async step(): Promise<number> {
    this.remote ??= await this.server.buffers.callOne(this.rank);
    const weights = new Float32Array(this.inputs * this.outputs);
    await this.remote.weights.readInto(weights);
    const residual = matmul(this.x, weights, this.rows, this.inputs, this.outputs);
    let squared = 0;
    for (let i = 0; i < residual.length; i++) {
      residual[i] -= this.y[i];
      squared += residual[i] * residual[i];
    }
    // The gradient of the loss sum(|xW - y|^2) / (2 rows): xᵀ(xW - y) / rows.
    await this.remote.gradient.writeFrom(matmulTransposed(this.x, residual, this.rows, this.inputs, this.outputs, 1 / this.rows));
    return squared / residual.length;
  }
}
