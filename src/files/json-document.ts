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
  // An array or a bare value where an object belongs: say so, rather than what valibot reads of
  // it (an array's `keys` is a function).
  const wantsObject = ["object", "strict_object", "loose_object"].includes(schema.type);
  if (wantsObject && (typeof doc !== "object" || doc === null || Array.isArray(doc))) {
    throw new SyntaxError(`Cannot read "${name}": the document: expected a JSON object`);
  }
  const result = v.safeParse(schema, doc);
  if (!result.success) {
    const issue = result.issues[0];
    const where = v.getDotPath(issue) ?? "the document";
    throw new SyntaxError(`Cannot read "${name}": ${where}: ${issue.message}`);
  }
  return result.output;
}
