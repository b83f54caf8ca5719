import { and, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db/client";
import { jsonList } from "../db/client";
import { optOutHashes, optOuts, users } from "../db/schema";

/**
 * The keyed hash an erased account's opt-out is kept by: HMAC-SHA256 of the E.164 number, keyed by a
 * key derived (HKDF) from PASSWORD_PEPPER with its own label. The pepper never leaves the Worker and
 * never changes (every password depends on it), so the hash is stable and cannot be computed, or a
 * list of numbers tried against it, by anyone without the pepper. CHAT_HASH_SECRET is not used: the
 * chat provider holds it.
 */
const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function hashKey(pepper: string): Promise<CryptoKey> {
  let key = keys.get(pepper);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", encoder.encode(pepper), "HKDF", false, ["deriveKey"])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode("blockpilot opt-out phone hash v1") },
          base,
          { name: "HMAC", hash: "SHA-256", length: 256 },
          false,
          ["sign"],
        ),
      );
    keys.set(pepper, key);
  }
  return key;
}

export async function phoneHash(pepper: string, phone: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await hashKey(pepper), encoder.encode(phone)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Numbers among `phones` that an erased account had opted out, moved back into opt_outs (and the
 * flags of any account with the number) in one transaction: once the number is with us again the
 * plain opt-out is what every check reads, and the hash row goes. Answers the channels moved back, by number.
 * Called where a number comes back: registration and each dispatch batch (the last check before
 * a send, whatever audience the campaign came from).
 */
export async function restoreErasedOptOuts(db: Db, pepper: string, phones: readonly string[]): Promise<Map<string, Set<"sms" | "whatsapp">>> {
  const unique = [...new Set(phones)];
  if (unique.length === 0) return new Map();
  const hashes = await Promise.all(unique.map((phone) => phoneHash(pepper, phone)));
  const phoneOf = new Map(hashes.map((hash, i) => [hash, unique[i]!]));
  const found = await db
    .select()
    .from(optOutHashes)
    .where(inArray(optOutHashes.hash, jsonList(hashes)))
    .all();
  if (found.length === 0) return new Map();
  const restored = found.map((row) => ({ phone: phoneOf.get(row.hash)!, channel: row.channel, at: row.at }));
  const statements: BatchItem<"sqlite">[] = [
    db
      .insert(optOuts)
      .values(restored.map((r) => ({ phone: r.phone, channel: r.channel, keyword: "ERASED", at: r.at })))
      .onConflictDoNothing(),
    ...restored.map((r) =>
      db
        .update(users)
        .set(r.channel === "sms" ? { smsOptOut: true } : { whatsappOptOut: true })
        .where(eq(users.phone, r.phone)),
    ),
    ...found.map((row) => db.delete(optOutHashes).where(and(eq(optOutHashes.hash, row.hash), eq(optOutHashes.channel, row.channel)))),
  ];
  await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  const moved = new Map<string, Set<"sms" | "whatsapp">>();
  for (const r of restored) moved.set(r.phone, (moved.get(r.phone) ?? new Set()).add(r.channel));
  return moved;
}
