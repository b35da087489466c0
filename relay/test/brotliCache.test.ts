import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { brotliPacked } from "../scripts/brotli-cache.mjs";
import { tempDir } from "./support/wait";

// Text that compresses differently at quality 1 and 11, so which one came back is visible.
const input = Buffer.from(
  Array.from({ length: 4000 }, (_, i) => `export const v${i} = ${(i * 7919) % 1000};`).join("\n"),
);
const quality = (q: number) =>
  brotliCompressSync(input, { params: { [constants.BROTLI_PARAM_QUALITY]: q } });

describe("the embedded libraries' brotli, kept between relay builds", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => dir.remove());
  const entry = () => {
    const files = readdirSync(dir.path);
    expect(files).toHaveLength(1);
    return join(dir.path, files[0] as string);
  };

  it("packs at quality 11 and keeps the result under the input's hash", () => {
    const packed = brotliPacked(input, dir.path);
    expect(packed.equals(quality(11))).toBe(true);
    expect(readFileSync(entry()).equals(packed)).toBe(true);
  });

  it("answers a second build from the kept entry", () => {
    brotliPacked(input, dir.path);
    // A valid entry of another quality stands in for the kept one: coming back proves it was read.
    writeFileSync(entry(), quality(1));
    const again = brotliPacked(input, dir.path);
    expect(again.equals(quality(1))).toBe(true);
    expect(brotliDecompressSync(again).equals(input)).toBe(true);
  });

  it("never uses an entry that does not decompress to the input: a damaged or foreign one is packed again", () => {
    brotliPacked(input, dir.path);
    for (const kept of [Buffer.from("not brotli"), brotliCompressSync(Buffer.from("other code"))]) {
      writeFileSync(entry(), kept);
      const packed = brotliPacked(input, dir.path);
      expect(packed.equals(quality(11))).toBe(true);
      expect(readFileSync(entry()).equals(packed)).toBe(true);
    }
  });

  it("still packs where the cache cannot be written", () => {
    const file = join(dir.path, "a-file");
    writeFileSync(file, "");
    // Its cache directory would be below a regular file: mkdir fails.
    expect(brotliPacked(input, join(file, "cache")).equals(quality(11))).toBe(true);
  });
});
