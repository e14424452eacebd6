// The actor of the batch-inference example: one model replica per process, loaded
// once when the actor starts, scoring batches of records.
import { Actor } from "fray/mesh";
import { Embedder } from "./model.js";

export interface Scored {
  /** Each record's label (an index into LABELS). */
  labels: Uint8Array;
  /** Each record's confidence in its label. */
  confidence: Float32Array;
}

export class Scorer extends Actor {
  readonly model = new Embedder();

  score(texts: string[]): Scored {
    const labels = new Uint8Array(texts.length);
    const confidence = new Float32Array(texts.length);
    texts.forEach((text, i) => ({ label: labels[i], confidence: confidence[i] } = this.model.classify(text)));
    return { labels, confidence };
  }
}
