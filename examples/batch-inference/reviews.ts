// The data of the batch-inference example: product reviews made up from a seed,
// each with the sentiment it was written with, to check the model's labels against.

const NEUTRAL = [
  "the",
  "box",
  "arrived",
  "on",
  "time",
  "it",
  "is",
  "a",
  "lamp",
  "for",
  "my",
  "desk",
  "and",
  "works",
  "with",
  "usb",
  "color",
  "size",
  "as",
  "shown",
];
const WORDS = [
  ["broken", "terrible", "awful", "flimsy", "disappointing", "waste", "poor", "cheap", "useless", "refund"],
  ["great", "excellent", "sturdy", "perfect", "love", "reliable", "wonderful", "recommend", "fantastic", "quality"],
];

export interface Review {
  text: string;
  /** 0: negative, 1: positive. */
  sentiment: number;
}

export function reviews(count: number, seed = 1): Review[] {
  let state = seed >>> 0;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const pick = (words: readonly string[]) => words[Math.floor(next() * words.length)];
  return Array.from({ length: count }, () => {
    const sentiment = next() < 0.5 ? 0 : 1;
    const words = Array.from({ length: 10 + Math.floor(next() * 15) }, () => {
      const r = next();
      return r < 0.7 ? pick(NEUTRAL) : pick(WORDS[r < 0.93 ? sentiment : 1 - sentiment]); // some words of the other side
    });
    return { text: words.join(" "), sentiment };
  });
}
