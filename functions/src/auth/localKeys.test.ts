import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadOrCreateLocalKeys } from "../local/keys";

const posix = process.platform !== "win32";

describe("local shared keys", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "quiesce-keys-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("generates two distinct 32-byte base64url keys on first start, in a 0600 file", () => {
    const dir = join(root, ".quiesce");
    const keys = loadOrCreateLocalKeys(dir);
    expect(keys.relayKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(keys.operatorKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(keys.relayKey).not.toBe(keys.operatorKey);
    const file = join(dir, "local-keys.json");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(keys);
    if (posix) expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("reuses the same keys on every later start", () => {
    const first = loadOrCreateLocalKeys(root);
    expect(loadOrCreateLocalKeys(root)).toEqual(first);
  });

  it("tightens a keys file that was left readable by others", () => {
    const keys = loadOrCreateLocalKeys(root);
    const file = join(root, "local-keys.json");
    chmodSync(file, 0o644);
    expect(loadOrCreateLocalKeys(root)).toEqual(keys);
    if (posix) expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("refuses a corrupt keys file rather than silently replacing it", () => {
    writeFileSync(join(root, "local-keys.json"), "{not json");
    expect(() => loadOrCreateLocalKeys(root)).toThrow(/delete it to generate new keys/);
  });
});
