/**
 * One hour's stored reading: a fixed-width row of the column catalog, NaN where the source had
 * no value. A typed array keeps a year of readings in about 4 MB and makes copies cheap.
 */
import { COLUMN_COUNT } from "./columns.ts";

/** An hourly reading indexed by `columnIndex`; NaN means "no value". */
export type Reading = Float64Array;

/** A reading with no values. */
export function emptyReading(): Reading {
  return new Float64Array(COLUMN_COUNT).fill(NaN);
}

/** A column's value, or null where the reading has none. */
export function valueAt(reading: Reading | undefined, column: number): number | null {
  if (reading === undefined) return null;
  const v = reading[column]!;
  return Number.isNaN(v) ? null : v;
}
