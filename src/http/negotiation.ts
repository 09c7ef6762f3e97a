/** Content negotiation: which representation (JSON, CSV or Parquet) and which content coding to send. */

/** The representations a dataset endpoint can send. */
export const FORMATS = ["json", "csv", "parquet"] as const;
export type Format = (typeof FORMATS)[number];
/** The content codings the service can apply. */
export type Encoding = "br" | "gzip" | "identity";

interface Preference {
  readonly value: string;
  readonly q: number;
}

// Parses `a;q=0.5, b` into entries with their weights; a malformed weight counts as 0.
function preferences(header: string | undefined): Preference[] {
  if (header === undefined || header.trim() === "") return [];
  return header.split(",").flatMap((part) => {
    const [value, ...params] = part.trim().split(";");
    if (!value) return [];
    let q = 1;
    for (const param of params) {
      const [k, v] = param.trim().split("=");
      if (k?.trim().toLowerCase() === "q") {
        const n = Number(v);
        q = Number.isFinite(n) && n >= 0 && n <= 1 ? n : 0;
      }
    }
    return [{ value: value.trim().toLowerCase(), q }];
  });
}

function weight(prefs: readonly Preference[], candidates: readonly string[]): number {
  let best = -1;
  for (const p of prefs) if (candidates.includes(p.value)) best = Math.max(best, p.q);
  return best;
}

/** Parquet's media type (IANA, 2024). */
export const PARQUET_TYPE = "application/vnd.apache.parquet";

/**
 * `format=json|csv|parquet` wins; else `Accept` decides among the formats `offered`, JSON whenever
 * it is at least as welcome as CSV and Parquet (so no header, `*\/*` or an unrelated type get
 * JSON), Parquet over CSV on a tie.
 */
export function chooseFormat(
  param: Format | undefined,
  accept: string | undefined,
  offered: readonly Format[] = FORMATS,
): Format {
  if (param !== undefined) return param;
  const prefs = preferences(accept);
  const csv = offered.includes("csv") ? weight(prefs, ["text/csv"]) : -1;
  const parquet = offered.includes("parquet") ? weight(prefs, [PARQUET_TYPE]) : -1;
  const json = weight(prefs, ["application/json", "application/*", "*/*"]);
  if (parquet > 0 && parquet > json && parquet >= csv) return "parquet";
  return csv > 0 && csv > json ? "csv" : "json";
}

// A coding's weight, or `otherwise` (the weight of "*") when the client does not name it.
function weightOr(prefs: readonly Preference[], coding: string, otherwise: number): number {
  const w = weight(prefs, [coding]);
  return w >= 0 ? w : otherwise;
}

/** The best coding the client accepts: br, then gzip, else identity. */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding {
  const prefs = preferences(acceptEncoding);
  const star = weight(prefs, ["*"]);
  const br = weightOr(prefs, "br", star);
  const gzip = weightOr(prefs, "gzip", star);
  if (br > 0 && br >= gzip) return "br";
  if (gzip > 0) return "gzip";
  return "identity";
}
