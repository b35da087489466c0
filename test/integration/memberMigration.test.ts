import { TableClient } from "@azure/data-tables";
import {
  legacyMemberPartition,
  memberPartition,
  migrateMembers,
  type StoredEntity,
} from "@quiesce/functions";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  call,
  makeReport,
  postReport,
  request,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";
import previous from "../../functions/src/store/fixtures/rows-bc3f1b9.json";

/**
 * Issue 22's migration: member rows move from one partition per cluster (every release before
 * the buckets) into 64 buckets per cluster, online, while relays keep reporting. The rows are
 * exactly those the previous coordinator (bc3f1b9) wrote through its handlers; a previous-release
 * instance left running beside this one keeps writing its scheme, and what it writes is not lost.
 */

const azurite = useAzurite();
const rows = previous as Record<string, StoredEntity[]>;

function table(c: TestCoordinator, name: string) {
  return TableClient.fromConnectionString(c.connectionString, `${c.prefix}${name}`, {
    allowInsecureConnection: true,
  });
}

/** A deployment of the previous release: its rows, as it wrote them, under this test's tables. */
async function previousDeployment(): Promise<TestCoordinator> {
  const c = await testCoordinator(azurite().connectionString);
  for (const name of ["Members", "Events", "Readiness"])
    for (const { etag: _e, ...row } of rows[name] ?? []) await table(c, name).createEntity(row);
  return c;
}

async function memberRows(c: TestCoordinator) {
  const out: Array<{ partitionKey: string; rowKey: string; d0: string }> = [];
  for await (const e of table(c, "Members").listEntities<{ d0: string }>())
    out.push({ partitionKey: e.partitionKey as string, rowKey: e.rowKey as string, d0: e.d0 });
  return out;
}

const clusterMembers = async (c: TestCoordinator) =>
  (
    await call(
      c.handlers.cluster,
      request("GET", "clusters/web", { key: c.operatorKey, params: { cluster: "web" } }),
    )
  ).body.members.map((m: { vm: string }) => m.vm);

describe("member rows of an earlier release", () => {
  it("are read where the previous release wrote them, moved by the VM's next report and by the sweep, and nothing is lost", async () => {
    const c = await previousDeployment();
    expect(await clusterMembers(c)).toEqual(["web-0", "web-1", "web-2"]);

    // web-0's stored incarnation is 3: an older document is still refused (invariant 4), so the
    // new coordinator read the old row, not an empty one.
    const stale = await postReport(c, makeReport("web-0", { incarnation: 2 }));
    expect(stale.body.applied).toBe(false);
    // Its next report that changes its row moves it into its bucket.
    const fresh = await postReport(c, makeReport("web-0", { incarnation: 4, bootId: "boot-2" }));
    expect(fresh.body.applied).toBe(true);
    let stored = await memberRows(c);
    expect(stored.find((r) => r.rowKey === "web-0")?.partitionKey).toBe(
      memberPartition("web", "web-0"),
    );
    expect(stored.filter((r) => r.rowKey === "web-0")).toHaveLength(1);

    // The sweep moves the rest, then marks the migration done.
    const sweep = await c.handlers.sweep();
    expect(sweep.membersMoved).toBe(2);
    stored = await memberRows(c);
    expect(
      stored.every((r) => r.partitionKey.includes("|") || r.partitionKey.startsWith("~")),
    ).toBe(true);
    expect(
      stored
        .filter((r) => !r.partitionKey.startsWith("~"))
        .map((r) => r.rowKey)
        .sort(),
    ).toEqual(["web-0", "web-1", "web-2"]);
    expect((await migrateMembers(c.deps.store.memberRows)).complete).toBe(true);
    expect(await clusterMembers(c)).toEqual(["web-0", "web-1", "web-2"]);
    // Every field survived the move: web-1's row is the previous release's, byte for byte.
    const original = rows.Members?.find((r) => r.rowKey === "web-1");
    expect(stored.find((r) => r.rowKey === "web-1")?.d0).toBe(original?.d0);
  });

  it("keeps the newer of two rows when an instance of the previous release wrote one beside it", async () => {
    const c = await previousDeployment();
    await c.handlers.sweep(); // everything moved
    const old = table(c, "Members");
    const original = rows.Members?.find((r) => r.rowKey === "web-1") as StoredEntity;
    const later = Number(original.lastSeenAt) + 60_000;
    // The old instance heard web-1 restarted (a newer row) and web-2 long ago (an older one).
    const d0 = JSON.parse(String(original.d0));
    await old.createEntity({
      partitionKey: legacyMemberPartition("web"),
      rowKey: "web-1",
      n: 1,
      d0: JSON.stringify({ ...d0, bootId: "boot-restarted", lastSeenAt: later }),
      vm: "web-1",
      lastSeenAt: later,
    });
    const web2 = rows.Members?.find((r) => r.rowKey === "web-2") as StoredEntity;
    await old.createEntity({
      ...Object.fromEntries(Object.entries(web2).filter(([k]) => k !== "etag")),
      partitionKey: legacyMemberPartition("web"),
      rowKey: "web-2",
      d0: JSON.stringify({ ...JSON.parse(String(web2.d0)), bootId: "boot-ancient" }),
      lastSeenAt: Number(web2.lastSeenAt) - 60_000,
    });
    const pass = await migrateMembers(c.deps.store.memberRows);
    expect(pass).toMatchObject({ found: 2, moved: 2, skipped: 0 });
    const stored = await memberRows(c);
    expect(stored.filter((r) => r.partitionKey === legacyMemberPartition("web"))).toEqual([]);
    const bootOf = (vm: string) =>
      JSON.parse(stored.find((r) => r.rowKey === vm)?.d0 ?? "{}").bootId;
    expect(bootOf("web-1")).toBe("boot-restarted");
    expect(bootOf("web-2")).toBe("boot-1");
  });
});
