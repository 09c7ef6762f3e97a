/**
 * The hourly datasets: the six read from the portal's hours (`datasets/`) and grid stress, derived
 * from them. The service serves each from the reading store, and an ingest of hours feeds each,
 * so the pull's `data.published` events name these.
 */
import { availability } from "../datasets/availability.ts";
import { generationMix } from "../datasets/generation-mix.ts";
import { loadReduction } from "../datasets/load-reduction.ts";
import { pumpedStorage } from "../datasets/pumped-storage.ts";
import { supplyMargin } from "../datasets/supply-margin.ts";
import { systemState } from "../datasets/system-state.ts";
import { gridStress } from "./grid-stress.ts";

export const HOURLY_DATASETS = [
  systemState,
  generationMix,
  gridStress,
  loadReduction,
  availability,
  supplyMargin,
  pumpedStorage,
];
