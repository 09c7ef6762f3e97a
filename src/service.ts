/** Wires the store, the datasets and the HTTP pipeline into one request listener. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { generationMix } from "./datasets/generation-mix.ts";
import { gridStress } from "./datasets/grid-stress.ts";
import { systemState } from "./datasets/system-state.ts";
import { type AccessLogEntry, createApp, type Guard } from "./http/app.ts";
import { datasetHandler } from "./http/dataset-handler.ts";
import type { Route } from "./http/router.ts";
import type { ReadingStore } from "./store/reading-store.ts";

const READ_METHODS = ["GET", "HEAD"];

export interface ServiceOptions {
  readonly store: ReadingStore;
  /** Authentication and limits for every route with a scope. */
  readonly guard: Guard;
  readonly log?: (entry: AccessLogEntry) => void;
  readonly logError?: (error: unknown) => void;
}

/** The service's request listener. */
export function createService(options: ServiceOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { store } = options;
  const routes: Route[] = [systemState, generationMix, gridStress].map((dataset) => ({
    path: dataset.path,
    methods: READ_METHODS,
    scope: dataset.scope,
    handler: datasetHandler(dataset, store),
  }));
  return createApp({ routes, guard: options.guard, log: options.log, logError: options.logError });
}
