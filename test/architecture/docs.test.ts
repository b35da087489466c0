import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(__dirname, "..", "..");
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The page's lines outside fenced code blocks (a shell comment there is not a heading). */
function prose(page: string): string[] {
  let fenced = false;
  return readFileSync(join(root, page), "utf8")
    .split("\n")
    .filter((line) => {
      if (line.startsWith("```")) fenced = !fenced;
      return !fenced && !line.startsWith("```");
    });
}

describe("README and docs/", () => {
  it.each(pages)(
    "%s has each section once (an edit that pasted a second, stale copy is caught)",
    (page) => {
      const headings = prose(page).filter((l) => /^#{1,2} /.test(l));
      const twice = headings.filter((h, i) => headings.indexOf(h) !== i);
      expect(twice).toEqual([]);
    },
  );

  it.each(pages)("%s links only to files that exist", (page) => {
    const missing = prose(page)
      .map((l) => l.replace(/`[^`]*`/g, "")) // `[Title](url)` in code is an example, not a link
      .flatMap((l) => [...l.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1] as string))
      .filter((target) => !/^[a-z]+:/i.test(target))
      .filter((target) => !existsSync(resolve(root, dirname(page), target)));
    expect(missing).toEqual([]);
  });
});
