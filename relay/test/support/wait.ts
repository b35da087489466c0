import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export { waitFor } from "@quiesce/testkit/wait";

export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "quiesce-relay-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}
