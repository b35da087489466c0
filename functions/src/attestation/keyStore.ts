import { createHash, randomBytes } from "node:crypto";
import { ConcurrencyConflict, type CountedTable } from "../store";

/**
 * The attestation table (`<prefix>Attestation`): what attestation keeps besides the bindings on
 * member rows. One row holds the nonce key every instance shares; the others cache the
 * intermediates fetched by their AIA URL (aia.ts), so a fleet of instances fetches each once.
 */

const KEY_PARTITION = "key";
const KEY_ROW = "nonce-hmac";
const AIA_PARTITION = "aia";

/** The HMAC key of the nonces: made by the first instance that needs it, read by the others. */
export async function nonceKey(table: CountedTable): Promise<Uint8Array> {
  const read = async () => {
    const row = await table.get(KEY_PARTITION, KEY_ROW);
    const text = row?.key;
    return typeof text === "string" && text.length >= 43 ? Buffer.from(text, "base64url") : null;
  };
  const existing = await read();
  if (existing) return existing;
  const key = randomBytes(32);
  try {
    await table.insert({
      partitionKey: KEY_PARTITION,
      rowKey: KEY_ROW,
      key: key.toString("base64url"),
    });
    return key;
  } catch (e) {
    // Another instance made it first: everyone uses that one.
    if (!(e instanceof ConcurrencyConflict)) throw e;
    const theirs = await read();
    if (!theirs) throw new Error("the attestation nonce key row exists but does not read");
    return theirs;
  }
}

/** Intermediates by AIA URL; DER as base64 (a certificate is well under the 64 KB property limit). */
export function tableAiaCache(table: CountedTable) {
  const rowKey = (url: string) => createHash("sha256").update(url).digest("hex");
  return {
    async get(url: string): Promise<Uint8Array | undefined> {
      const row = await table.get(AIA_PARTITION, rowKey(url));
      return typeof row?.der === "string" ? Buffer.from(row.der, "base64") : undefined;
    },
    async put(url: string, der: Uint8Array): Promise<void> {
      const entity = {
        partitionKey: AIA_PARTITION,
        rowKey: rowKey(url),
        url: url.slice(0, 1024),
        der: Buffer.from(der).toString("base64"),
      };
      try {
        await table.insert(entity);
      } catch (e) {
        if (!(e instanceof ConcurrencyConflict)) throw e; // cached by another instance meanwhile
      }
    },
  };
}
