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
