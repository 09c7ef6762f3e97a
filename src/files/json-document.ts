/** Parsing a JSON document the service keeps (keys, accounts) against its schema, with clear errors. */
import * as v from "valibot";

/**
 * Parses `text` as the document `name` and validates it; throws a SyntaxError naming the file and
 * what is wrong (`Cannot read "keys.json": keys.0.hash: ...`).
 */
export function parseDocument<S extends v.GenericSchema>(
  text: string,
  schema: S,
  name: string,
): v.InferOutput<S> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(`Cannot parse "${name}": ${(error as Error).message}`);
  }
  const result = v.safeParse(schema, doc);
  if (!result.success) {
    const issue = result.issues[0];
    const where = v.getDotPath(issue) ?? "the document";
    throw new SyntaxError(`Cannot read "${name}": ${where}: ${issue.message}`);
  }
  return result.output;
}
