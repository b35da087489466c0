import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { E2E_SECONDS } from "./test/e2e/support/expectedSeconds";

/**
 * The end-to-end files, longest first, also where vitest has no durations of its own. Vitest runs
 * the files it timed before longest first; in a fresh clone it has none and runs the largest first,
 * which started the 37 s control-plane errors and the 31 s Kubernetes files among the last and
 * left the phase 166 s where it takes about 150 s. A file test/e2e/support/expectedSeconds.ts does
 * not list (test/architecture/e2eOrder.test.ts fails on it) runs first, as vitest runs a file it
 * does not know.
 */
export class E2eLongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const path = (f: TestSpecification) => relative(root, f.moduleId).split("\\").join("/");
    const e2e = sorted.filter((f) => f.project.name === "e2e");
    const timed = (f: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${path(f)}`) !== undefined;
    if (e2e.every(timed)) return sorted;
    const seconds = (f: TestSpecification) => E2E_SECONDS[path(f)] ?? Number.POSITIVE_INFINITY;
    const ordered = [...e2e].sort((a, b) => seconds(b) - seconds(a));
    return sorted.map((f) =>
      f.project.name === "e2e" ? (ordered.shift() as TestSpecification) : f,
    );
  }
}
