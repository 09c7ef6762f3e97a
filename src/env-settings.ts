/** Reading settings from the environment with a valibot schema, for the server and for `pull`. */
import * as v from "valibot";

/** A whole number of at least 1, from its text. */
export const PositiveInteger = v.pipe(
  v.string(),
  v.regex(/^\d+$/, "must be a whole number"),
  v.transform(Number),
  v.minValue(1, "must be at least 1"),
);

// A value in an error message: strings as they are, anything else as JSON.
function shown(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * Validates `env` against `schema`, an empty variable counting as unset; throws a TypeError naming
 * the variable, its value and what is wrong (`Invalid PORT: "eighty" must be a whole number`).
 */
export function parseEnv<S extends v.GenericSchema>(schema: S, env: NodeJS.ProcessEnv): v.InferOutput<S> {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const result = v.safeParse(schema, present);
  if (!result.success) {
    const issue = result.issues[0];
    throw new TypeError(
      `Invalid ${shown(issue.path?.[0]?.key ?? "setting")}: "${shown(issue.input)}" ${issue.message}`,
    );
  }
  return result.output;
}
