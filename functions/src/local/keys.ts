import { randomBytes } from "node:crypto";
import {
  chmodSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { parseJsonWith } from "@quiesce/protocol";
import { z } from "zod";

export interface LocalKeys {
  relayKey: string;
  operatorKey: string;
  /** Read-only: the status routes and the status page, no operator actions. */
  readerKey: string;
}

const KeysFile = z.object({
  relayKey: z.string().min(16),
  operatorKey: z.string().min(16),
  // Files written before the reader key existed lack it; it is added on the next start.
  readerKey: z.string().min(16).optional(),
});

const FILE_NAME = "local-keys.json";
const newKey = () => randomBytes(32).toString("base64url");

/**
 * The local host's shared keys: generated on first start into `<dir>/local-keys.json` (0600),
 * reused afterwards so relays keep working across restarts. Delete the file to rotate.
 */
export function loadOrCreateLocalKeys(dir: string): LocalKeys {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, FILE_NAME);
  const existing = readKeys(file);
  if (existing?.readerKey) return { ...existing, readerKey: existing.readerKey };
  if (existing) {
    const upgraded = { ...existing, readerKey: newKey() };
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(upgraded, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    renameSync(tmp, file);
    return upgraded;
  }

  const keys: LocalKeys = { relayKey: newKey(), operatorKey: newKey(), readerKey: newKey() };
  // Write aside, then link into place: link fails if the file exists, so two hosts starting at
  // once agree on one set of keys and nobody ever reads a half-written file.
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(tmp, file);
    return keys;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    const winner = readKeys(file);
    if (!winner?.readerKey) throw new Error(`${file} vanished while being created; start again`);
    return { ...winner, readerKey: winner.readerKey };
  } finally {
    unlinkSync(tmp);
  }
}

function readKeys(file: string): z.infer<typeof KeysFile> | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  const keys = parseJsonWith(KeysFile, text);
  // No detail: JSON.parse quotes the text, and this file holds secrets.
  if (!keys.ok) throw new Error(`${file} is not a valid keys file; delete it to generate new keys`);
  // Someone may have copied it with looser permissions; the keys are secrets.
  if (process.platform !== "win32" && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return keys.value;
}
