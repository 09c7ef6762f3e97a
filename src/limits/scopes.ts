/**
 * The limiter scopes and their default limits per rolling 60 seconds (README: "API keys and limits"; `metadata`,
 * for the dataset catalog, is ours and generous). The
 * operator can change the defaults with `RATE_LIMITS="normalized_data=20,features=5"`; a key can
 * carry its own per-scope overrides in the key store.
 */

/** Every scope a request can be counted in. */
export const SCOPES = ["normalized_data", "features", "metadata"] as const;
export type Scope = (typeof SCOPES)[number];

/** Requests allowed per key and scope in any 60 seconds, unless configured otherwise. */
export const DEFAULT_LIMITS: Readonly<Record<Scope, number>> = {
  normalized_data: 10,
  features: 3,
  metadata: 60,
};

/** The rolling window every limit is counted over. */
export const WINDOW_MS = 60_000;

/** Whether a string names a scope. */
export function isScope(name: string): name is Scope {
  return (SCOPES as readonly string[]).includes(name);
}

/**
 * Parses `scope=N` assignments (comma-separated or given one by one); throws a TypeError naming
 * the bad part. `allowDefault` lets `scope=default` mean "remove the override" (returned as null).
 */
export function parseLimitAssignments(
  parts: readonly string[],
  options: { allowDefault?: boolean } = {},
): Partial<Record<Scope, number | null>> {
  const out: Partial<Record<Scope, number | null>> = {};
  for (const part of parts
    .flatMap((p) => p.split(","))
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([a-z_]+)=(\d+|default)$/.exec(part);
    if (m === null) throw new TypeError(`"${part}" is not SCOPE=N`);
    const [, scope, value] = m;
    if (!isScope(scope!))
      throw new TypeError(`"${scope}" is not a scope; the scopes are ${SCOPES.join(", ")}`);
    if (value === "default" && !options.allowDefault) throw new TypeError(`"${part}" needs a number`);
    const n = value === "default" ? null : Number(value);
    if (n !== null && !Number.isSafeInteger(n)) throw new TypeError(`"${part}" is too large`);
    out[scope] = n;
  }
  return out;
}

/** The default limits with the operator's `RATE_LIMITS` applied. */
export function configuredLimits(spec: string | undefined): Record<Scope, number> {
  const limits = { ...DEFAULT_LIMITS };
  if (spec !== undefined && spec.trim() !== "") {
    for (const [scope, n] of Object.entries(parseLimitAssignments([spec]))) limits[scope as Scope] = n!;
  }
  return limits;
}
