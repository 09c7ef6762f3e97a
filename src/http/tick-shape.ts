/**
 * Keeps the shape of Node's tick objects alive for the life of the process (README: "Performance",
 * "a costlier state after an idle period").
 *
 * Each `process.nextTick` (node:http and its streams make about 15 a request) builds a small tick
 * object from one object literal with two symbol keys. V8 builds it inline along a chain of hidden
 * classes ("maps") that only objects alive at the time hold on to. When the process is idle, V8's
 * memory reducer collects the heap, the chain goes with the last tick object, and the first
 * `nextTick` after that builds a new one that V8 no longer builds inline: from then on every tick
 * object goes through a runtime call, about 37,000 instructions a request more (a third), until the
 * process ends. Holding one tick object keeps its chain, and the inline path, alive.
 *
 * The object is taken once, at start, by an `async_hooks` init hook that is enabled for one
 * `nextTick` of our own and disabled at once, so that no hook runs on any request.
 */
import { createHook } from "node:async_hooks";

let kept: object | undefined;

/** Holds one of Node's tick objects for the life of the process; returns it (undefined if none was seen). */
export function keepTickShape(): object | undefined {
  if (kept !== undefined) return kept;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === "TickObject" && kept === undefined) kept = resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(() => {});
  } finally {
    hook.disable();
  }
  return kept;
}
