/**
 * The fields one dataset response carries: those of its interval, period and aggregate, narrowed
 * to `columns` when asked (the stamp, `ts` or `date`, always first). A name that is no field is a
 * 400 listing the valid ones; a field whose aggregate the request names but does not allow is a
 * 400 listing the aggregates it allows.
 */
import { aggregateName, aggregatesOf } from "../records/aggregates.ts";
import { type DataRecord, type DatasetDoc, type FieldDoc, servedFieldsOf } from "../records/dataset.ts";
import { badRequest, echo } from "./http-error.ts";
import type { ParsedRange } from "./range-query.ts";

/** The fields of a response to `range`, in served order; throws a 400 for an unknown column. */
export function responseFields(dataset: DatasetDoc, range: ParsedRange): readonly FieldDoc[] {
  const all = servedFieldsOf(dataset, range);
  if (range.columns === undefined) return all;
  const [stamp, ...rest] = all;
  const byName = new Map(rest.map((f) => [f.name, f]));
  const picked: FieldDoc[] = [stamp!];
  for (const name of new Set(range.columns)) {
    if (name === stamp!.name) continue;
    const field = byName.get(name);
    if (field === undefined) throw unknownColumn(dataset, range, name, [...byName.keys()]);
    picked.push(field);
  }
  return picked;
}

function unknownColumn(dataset: DatasetDoc, range: ParsedRange, name: string, valid: readonly string[]) {
  // `agg=sum&columns=sum_renewable_share_pct`, or the hourly name itself: say which aggregates it has.
  const hourly = dataset.fields["1h"].find(
    (f) => range.interval === "1d" && (f.name === name || aggregateName(range.agg, f.name) === name),
  );
  if (hourly !== undefined && !aggregatesOf(hourly).includes(range.agg)) {
    const allowed = aggregatesOf(hourly);
    return badRequest(
      "invalid_parameter",
      `Field '${hourly.name}' has no ${range.agg}: ` +
        (allowed.length === 0 ? "it has no aggregate." : `its aggregates are ${allowed.join(", ")}.`) +
        ` Valid columns here: ${valid.join(", ")}.`,
    );
  }
  return badRequest(
    "invalid_parameter",
    `Unknown column '${echo(name)}' in 'columns'. Valid columns here: ${valid.join(", ")}.`,
  );
}

/** `record` with only `fields`, in their order. */
export function project(record: DataRecord, fields: readonly FieldDoc[]): DataRecord {
  const out: DataRecord = {};
  for (const field of fields) if (field.name in record) out[field.name] = record[field.name]!;
  return out;
}
