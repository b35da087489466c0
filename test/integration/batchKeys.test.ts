import { TableClient } from "@azure/data-tables";
import { encodeKey, openTables, zeroCounts } from "@quiesce/functions";
import { useAzurite } from "@quiesce/testkit/azurite";
import { uniquePrefix } from "@quiesce/testkit/harness";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/**
 * Entity group transactions (an election's, functions/src/store/budget.ts; deletes in bulk) with
 * odd but legal names and texts, on Azurite: what functions/src/store/batchBody.ts and keys.ts
 * make safe. Azurite loses a sub-request holding U+2028 or U+2029 and misreads a RowKey starting
 * with a comma; real Table Storage takes both.
 */

const azurite = useAzurite();

const ODD = [" ", "  ", ",", ",a", "a,", "a,b", "\u2028", "\u2029", "a\u2028b", "🙂", "%budget"];
const ALPHABET = [" ", ",", "'", "%", "\u2028", "\u2029", "a", "🙂", "名", "\u00a0", "#"];

async function eventsTable() {
  const tables = openTables(
    { connectionString: azurite().connectionString },
    uniquePrefix(),
    zeroCounts(),
  );
  await tables.Events.create();
  return tables.Events;
}

describe("entity group transactions with odd but legal names", () => {
  it("create, replace under the ETags they return and delete in bulk any name once encoded, and keep the text it carries", async () => {
    const events = await eventsTable();
    const names = [
      ...ODD,
      ...fc
        .sample(fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 6 }), {
          numRuns: 60,
          seed: 20261127,
        })
        .map((chars) => chars.join("")),
    ];
    for (const [i, name] of names.entries()) {
      const pk = `p${i}`;
      const row = (n: number) => ({
        partitionKey: pk,
        rowKey: encodeKey(name),
        d0: `${name}|${n}`,
      });
      const budget = { partitionKey: pk, rowKey: "%budget", ended: true };
      const [b1, e1] = await events.writeTogether([
        { entity: budget, etag: undefined },
        { entity: row(1), etag: undefined },
      ]);
      const stored1 = await events.get(pk, encodeKey(name));
      expect(stored1?.d0, JSON.stringify(name)).toBe(`${name}|1`);
      // Each row's new ETag, whatever its key (the next election writes under them).
      expect([b1, e1], JSON.stringify(name)).toEqual([
        (await events.get(pk, "%budget"))?.etag,
        stored1?.etag,
      ]);
      await events.writeTogether([
        { entity: budget, etag: b1 },
        { entity: row(2), etag: e1 },
      ]);
      expect((await events.get(pk, encodeKey(name)))?.d0, JSON.stringify(name)).toBe(`${name}|2`);
      await events.removeAll([budget, row(2)]);
      expect(await events.get(pk, encodeKey(name)), JSON.stringify(name)).toBeNull();
    }
  }, 120_000);

  it("rows an earlier release wrote under keys it did not escape are still deleted in bulk", async () => {
    const events = await eventsTable();
    const rows = [",legacy", "leg\u2028acy", "plain"].map((rowKey) => ({
      partitionKey: "p",
      rowKey,
    }));
    for (const r of rows) await events.insert(r);
    await events.removeAll(rows);
    for (const r of rows) expect(await events.get(r.partitionKey, r.rowKey)).toBeNull();
  });

  it("is what Azurite refuses without them: a separator in a transaction's body", async () => {
    const raw = TableClient.fromConnectionString(
      azurite().connectionString,
      `${uniquePrefix()}Raw`,
      {
        allowInsecureConnection: true,
      },
    );
    await raw.createTable();
    // One sub-request only: a refused election's transaction left Azurite failing later ones.
    await expect(
      raw.submitTransaction([["create", { partitionKey: "p", rowKey: "r", d0: "a\u2028b" }]]),
    ).rejects.toMatchObject({ statusCode: 400 });
  });
});
