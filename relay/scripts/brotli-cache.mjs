// Brotli at quality 11 of the embedded libraries (relay/scripts/build-options.mjs) takes about
// 3 s of CPU per relay build, the same bytes every time; the tests build the relay six times a
// run. So the packed form is kept under node_modules/.cache, keyed by the input's hash, and
// checked against the input before use: an entry that does not decompress to the input is
// packed again, so a damaged or foreign entry can never change a bundle.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import { writeAtomically } from "../../scripts/fs/write-atomically.mjs";

/**
 * @param {Uint8Array} code
 * @param {string} cacheDir
 * @returns {Buffer} brotli (quality 11) of code, from cacheDir when an entry there decompresses to it
 */
export function brotliPacked(code, cacheDir) {
  const input = Buffer.from(code.buffer, code.byteOffset, code.byteLength);
  const file = join(cacheDir, `${createHash("sha256").update(input).digest("hex")}.br`);
  try {
    const kept = readFileSync(file);
    if (brotliDecompressSync(kept).equals(input)) return kept;
  } catch {
    // absent or not brotli: packed again below
  }
  const packed = brotliCompressSync(input, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: input.length,
    },
  });
  try {
    writeAtomically(file, packed); // test files in parallel may build at once
  } catch {
    // a read-only tree still builds, only without the cache
  }
  return packed;
}
