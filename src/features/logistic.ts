/**
 * Logistic regression by Newton's method, with an L2 penalty on the weights (not the intercept):
 * the fit behind grid-stress v2's coefficients (`stress-v2.ts`). Small and exact: a handful of
 * inputs and tens of thousands of rows converge in a few iterations.
 */

/** The fitted intercept and weights. */
export interface LogisticFit {
  readonly intercept: number;
  readonly weights: readonly number[];
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

// Solves A x = b by Gaussian elimination with partial pivoting (A is small and positive definite).
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let j = c; j <= n; j++) m[r]![j] = m[r]![j]! - f * m[c]![j]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/** Fits P(y) = σ(intercept + weights·x) to the rows; `l2` penalizes the squared weights. */
export function fitLogistic(
  rows: readonly (readonly number[])[],
  labels: readonly boolean[],
  options: { l2?: number; iterations?: number } = {},
): LogisticFit {
  if (rows.length === 0 || rows.length !== labels.length)
    throw new RangeError("Nothing to fit, or labels differ in length");
  const l2 = options.l2 ?? 1;
  const k = rows[0]!.length + 1;
  let w = new Array<number>(k).fill(0);
  const z = new Array<number>(k).fill(1);
  for (let it = 0; it < (options.iterations ?? 50); it++) {
    const gradient = new Array<number>(k).fill(0);
    const hessian = Array.from({ length: k }, () => new Array<number>(k).fill(0));
    for (let r = 0; r < rows.length; r++) {
      const x = rows[r]!;
      let linear = w[0]!;
      for (let i = 1; i < k; i++) {
        z[i] = x[i - 1]!;
        linear += w[i]! * z[i]!;
      }
      const p = sigmoid(linear);
      const e = p - (labels[r] ? 1 : 0);
      const q = p * (1 - p);
      for (let i = 0; i < k; i++) {
        gradient[i] = gradient[i]! + e * z[i]!;
        const row = hessian[i]!;
        for (let j = 0; j <= i; j++) row[j] = row[j]! + q * z[i]! * z[j]!;
      }
    }
    for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) hessian[i]![j] = hessian[j]![i]!;
    for (let i = 1; i < k; i++) {
      gradient[i] = gradient[i]! + l2 * w[i]!;
      hessian[i]![i] = hessian[i]![i]! + l2;
    }
    const step = solve(hessian, gradient);
    w = w.map((v, i) => v - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-10) break;
  }
  return { intercept: w[0]!, weights: w.slice(1) };
}
