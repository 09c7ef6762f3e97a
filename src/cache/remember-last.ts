/**
 * A function of one argument that keeps its last argument and answer: for values that repeat from
 * one request to the next (the current millisecond or second, a client's Accept-Encoding, the
 * store's Last-Modified), so the formatting or parsing runs once per change, not once per request.
 */
export function rememberLast<A, R>(compute: (arg: A) => R): (arg: A) => R {
  let known = false;
  let lastArg: A;
  let lastResult: R;
  return (arg) => {
    if (!known || arg !== lastArg) {
      lastResult = compute(arg);
      lastArg = arg;
      known = true;
    }
    return lastResult;
  };
}

/**
 * A function of one argument that keeps its answers for up to `max` arguments, forgetting them all
 * at once when full: for values made from a few arguments that recur (a scope's limits, an ETag's
 * header texts), so that the same string goes out every time. Arguments are compared as Map keys.
 */
export function rememberMany<A, R>(max: number, compute: (arg: A) => R): (arg: A) => R {
  const known = new Map<A, R>();
  return (arg) => {
    let result = known.get(arg);
    if (result === undefined && !known.has(arg)) {
      if (known.size >= max) known.clear();
      result = compute(arg);
      known.set(arg, result);
    }
    return result as R;
  };
}
