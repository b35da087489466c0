/**
 * Comparing an answer with a REST spec example by shape: the key paths (`a.b[].c`) the example
 * has and the answer lacks, or has with another kind of value. Arrays are compared element-wise
 * against the answer's first element; values are not compared.
 */
export function missingPaths(example: unknown, answer: unknown, at = ""): string[] {
  if (Array.isArray(example)) {
    if (!Array.isArray(answer)) return [at];
    const first = example[0];
    if (first === undefined) return [];
    if (answer.length === 0) return [`${at}[]`];
    return missingPaths(first, answer[0], `${at}[]`);
  }
  if (example !== null && typeof example === "object") {
    if (answer === null || typeof answer !== "object" || Array.isArray(answer)) return [at];
    return Object.entries(example).flatMap(([k, v]) => {
      const path = at === "" ? k : `${at}.${k}`;
      return k in answer ? missingPaths(v, (answer as Record<string, unknown>)[k], path) : [path];
    });
  }
  return typeof example === typeof answer ? [] : [at];
}
