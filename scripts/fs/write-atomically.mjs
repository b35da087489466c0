// What the build and test tooling keeps in files others may read at the same moment (a bundle
// `npx quiesce` runs, a cache entry another test worker reads): written aside, then renamed into
// place, so a reader sees all of it or none.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * @param {string} file
 * @param {string | Uint8Array} data
 */
export function writeAtomically(file, data) {
  mkdirSync(dirname(file), { recursive: true });
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, data);
  renameSync(aside, file);
}
