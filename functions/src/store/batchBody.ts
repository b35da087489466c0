import type { PipelinePolicy } from "@azure/core-rest-pipeline";

/**
 * What an entity group transaction must not carry for Azurite, the Table Storage of `npm start`,
 * the local coordinator and the tests (measured on Azurite 3.35, test/integration/batchKeys.test.ts):
 *
 * - A line or paragraph separator (U+2028, U+2029) anywhere in a sub-request: Azurite finds each
 *   sub-request's JSON body and key with regular expressions whose `.` stops at them, so the
 *   transaction is refused (400, or 500 after another sub-request), every time. Worse, once an
 *   election's transaction (create the budget row, replace an event) had failed so, every later
 *   election's transaction on that Azurite failed too (500), in any table, until it restarted:
 *   one odd report took every later election down with it.
 * - A RowKey starting with a comma in a sub-request's URL (a replace or a delete): Azurite reads
 *   it as part of the PartitionKey and answers 404.
 *
 * Real Table Storage takes both. Keys never hold them (keys.ts escapes them). Property values
 * may: `JSON.stringify` leaves U+2028 and U+2029 as they are in a string, and a JSON string may
 * spell them `\u2028` and `\u2029` instead, the same string to any JSON parser. This policy does
 * that in every transaction's body, where these characters can only be inside JSON strings (the
 * SDK percent-encodes sub-request URLs and headers are ASCII).
 */
export const batchBodyPolicy: PipelinePolicy = {
  name: "quiesceBatchSeparators",
  sendRequest(request, next) {
    if (typeof request.body === "string" && request.url.includes("$batch"))
      request.body = request.body.replace(/[\u2028\u2029]/g, (ch) =>
        ch === "\u2028" ? "\\u2028" : "\\u2029",
      );
    return next(request);
  },
};

/**
 * Whether a row's keys can go in a transaction's sub-request URL: not a row an earlier release
 * wrote under a key keys.ts escapes today (a separator, or a leading comma in its RowKey). Those
 * rows are deleted one by one.
 */
export const batchableKeys = (row: { partitionKey: string; rowKey: string }): boolean =>
  !/[\u2028\u2029]/.test(row.partitionKey) && !/[\u2028\u2029]|^,/.test(row.rowKey);
