/**
 * A bound on how many large bodies are rendered at once: the rest wait their turn, first come first
 * served. Rendering yields to the event loop between pieces (see `dataset-body.ts`), so other
 * requests are answered meanwhile however many are waiting; the bound keeps the memory of bodies in
 * progress, and the time each takes, from growing with the number asked for at once.
 */

/** Slots for rendering; `run` waits for one, then runs `work` in it. */
export interface RenderSlots {
  run<T>(work: () => Promise<T>): Promise<T>;
}

/** At most `max` renders at once. */
export function createRenderSlots(max: number): RenderSlots {
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    async run(work) {
      if (running < max) running++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await work();
      } finally {
        // The slot passes straight to the next in line, or is freed.
        const next = waiting.shift();
        if (next !== undefined) next();
        else running--;
      }
    },
  };
}

/** Lets the event loop answer what is waiting (I/O, other requests) before going on. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
