import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { emptyState } from "../src/decisions/state";
import { loadState } from "../src/stateFile";

/**
 * A state file that does not parse is kept for a human to read, and the relay's warning says
 * where it is: moved aside, or copied when it could not be moved, never "moved" when it was not.
 */
describe("loadState with an unreadable state file", () => {
  const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
  const CORRUPT = '{"stateVersion": 1, "events": {';
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "quiesce-state-"));
    path = join(dir, "state.json");
    await writeFile(path, CORRUPT);
    // Date only: the name it is moved to carries the time.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(NOW);
  });
  afterEach(async () => {
    vi.useRealTimers();
    await rm(dir, { recursive: true, force: true });
  });

  it("moves it aside, says where, and starts empty", async () => {
    const loaded = await loadState(path);

    const aside = `${path}.corrupt-${NOW}`;
    expect(loaded.state).toEqual(emptyState());
    expect(loaded.problem).toMatch(/^state file unreadable \(not JSON: .+\); moved to /);
    expect(loaded.problem).toContain(`moved to ${aside}, starting empty`);
    expect(await readFile(aside, "utf8")).toBe(CORRUPT);
    expect(await readdir(dir)).toEqual([`state.json.corrupt-${NOW}`]);
  });

  it("when it cannot be moved (the name is taken), copies it under another name and says so, not 'moved'", async () => {
    const aside = `${path}.corrupt-${NOW}`;
    await mkdir(aside);
    await writeFile(join(aside, "keep"), "a directory that is not empty: rename fails");

    const loaded = await loadState(path);

    expect(loaded.state).toEqual(emptyState());
    expect(loaded.problem).not.toContain("moved to");
    const said = /could not move it to (\S+) \((.+)\), copied to (\S+), starting empty$/.exec(
      loaded.problem ?? "",
    );
    expect(said?.[1]).toBe(aside);
    expect(said?.[2]).toMatch(/E(ISDIR|NOTEMPTY|EXIST)/);
    const copy = said?.[3] ?? "";
    expect(copy.slice(0, aside.length + 1)).toBe(`${aside}-`);
    expect(copy.slice(aside.length + 1)).toMatch(/^[0-9a-f]{8}$/);
    expect(await readFile(copy, "utf8")).toBe(CORRUPT);
    // Still in place too: nothing was lost, and the first write replaces only this one.
    expect(await readFile(path, "utf8")).toBe(CORRUPT);
  });

  it("a state file that parses is read as it is, and nothing is set aside", async () => {
    const state = emptyState();
    await writeFile(path, JSON.stringify(state));

    expect(await loadState(path)).toEqual({ state });
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("a missing state file is a first start: empty, with no problem", async () => {
    await rm(path);
    expect(await loadState(path)).toEqual({ state: emptyState() });
  });
});
