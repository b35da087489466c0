import { randomUUID } from "node:crypto";
import { CountedTable, type TableOperation, tableClient, zeroCounts } from "@quiesce/functions";
import { useAzurite } from "@quiesce/testkit/azurite";
import { describe, expect, it } from "vitest";

const azurite = useAzurite();

/**
 * CountedTable.get reads an entity through the client's pipeline without the generated client
 * (store/pointRead.ts): it must return what the SDK's getEntity returns, property for property,
 * for every type a row can hold, and keys that need quoting or URL encoding.
 */
describe("a point read without the generated client", () => {
  const open = async () => {
    const client = tableClient(
      { connectionString: azurite().connectionString },
      `pr${randomUUID().slice(0, 8)}`,
    );
    await client.createTable();
    const seen: Array<[TableOperation, string]> = [];
    const table = new CountedTable(client, zeroCounts(), (_t, op, _ms, outcome) =>
      seen.push([op, outcome]),
    );
    return { client, table, seen };
  };

  it("returns what getEntity returns, types and keys included", async () => {
    const { client, table } = await open();
    const keys: Array<[string, string]> = [
      ["p", "r"],
      ["it's", "a 'quoted' key"],
      ["ümlaut ✓", "per%2Fcent+plus&amp=(x)"],
    ];
    for (const [partitionKey, rowKey] of keys) {
      await client.createEntity({
        partitionKey,
        rowKey,
        n: 1,
        d0: '{"json":"text"}',
        ended: true,
        ratio: 0.25,
        big: { value: "9007199254740993", type: "Int64" },
        at: new Date("2026-11-23T05:00:00.000Z"),
        id: { value: randomUUID(), type: "Guid" },
        bytes: new Uint8Array([1, 2, 3]),
      });
      const sdk = await client.getEntity(partitionKey, rowKey);
      const ours = await table.get(partitionKey, rowKey);
      expect(ours).toEqual(sdk);
      expect(ours?.etag).toMatch(/^W\/"datetime'/);
      expect(ours?.big).toBe(9007199254740993n);
    }
  });

  it("a missing entity is null, told to the observer as notFound", async () => {
    const { table, seen } = await open();
    expect(await table.get("p", "absent")).toBeNull();
    expect(seen).toEqual([["get", "notFound"]]);
  });

  it("a missing table is null; a refused read fails as the SDK's getEntity fails", async () => {
    const { connectionString } = azurite();
    // Table Storage answers a read of a missing table with 404 too: no entity, as before.
    expect(
      await new CountedTable(tableClient({ connectionString }, "NoSuch1"), zeroCounts()).get(
        "p",
        "r",
      ),
    ).toBeNull();
    const wrongKey = tableClient(
      { connectionString: connectionString.replace(/AccountKey=[^;]+/, "AccountKey=AAAA") },
      "pr",
    );
    const sdk = await wrongKey.getEntity("p", "r").then(
      () => undefined,
      (e: unknown) => e as { name: string; statusCode: number },
    );
    expect(sdk?.statusCode).toBeGreaterThanOrEqual(400);
    await expect(new CountedTable(wrongKey, zeroCounts()).get("p", "r")).rejects.toMatchObject({
      name: "RestError",
      statusCode: sdk?.statusCode,
    });
  });
});
