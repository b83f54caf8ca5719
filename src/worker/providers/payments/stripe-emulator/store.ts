import { and, eq, sql } from "drizzle-orm";
import { createDb, type Db } from "../../../db/client";
import { localStripeObjects } from "../../../db/schema";
import { PaymentsProviderError } from "../provider-error";
import type { Json } from "./objects";

/** An id as Stripe makes them, "_local_" after the prefix ("cs_local_…"): unguessable, so a page's URL is its capability. */
export const emulatorId = (prefix: string) =>
  `${prefix}_local_${Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("")}`;

/** Stripe's timestamps are in seconds. */
export const seconds = (ms: number) => Math.floor(ms / 1000);

/** A call Stripe refuses for good (a missing object, an amount too large): not retryable. */
export function refusal(message: string, code: string, status = 400): PaymentsProviderError {
  return new PaymentsProviderError(message, code, false, status);
}

/** The emulator's objects in D1 (local_stripe_objects): one row per Stripe object, its JSON in `data`. */
export class EmulatorStore {
  readonly db: Db;

  constructor(d1: D1Database) {
    this.db = createDb(d1);
  }

  async get<T>(id: string, object: string): Promise<T | undefined> {
    const row = await this.db
      .select({ data: localStripeObjects.data })
      .from(localStripeObjects)
      .where(and(eq(localStripeObjects.id, id), eq(localStripeObjects.object, object)))
      .get();
    return row?.data as T | undefined;
  }

  async put(data: { id: string; object: string } & Json): Promise<void> {
    const now = Date.now();
    await this.db.insert(localStripeObjects).values({ id: data.id, object: data.object, data, createdAt: now, updatedAt: now });
  }

  /** Replaces an object whatever it holds. */
  async overwrite(id: string, data: Json): Promise<void> {
    await this.db.update(localStripeObjects).set({ data, updatedAt: Date.now() }).where(eq(localStripeObjects.id, id));
  }

  /** Replaces an object only if `field` still holds `expected` (a compare-and-set, so two requests cannot both act). */
  async replaceIf(id: string, field: string, expected: string | number | boolean, data: Json): Promise<boolean> {
    const updated = await this.db
      .update(localStripeObjects)
      .set({ data, updatedAt: Date.now() })
      .where(and(eq(localStripeObjects.id, id), sql`json_extract(${localStripeObjects.data}, ${`$.${field}`}) = ${expected}`))
      .returning({ id: localStripeObjects.id });
    return updated.length > 0;
  }

  /** Stripe answers a repeated idempotency key with the first result; so does this. */
  async idempotent(key: string, create: () => Promise<string>): Promise<string> {
    const recordId = `idem_${key}`;
    const seen = await this.get<{ result: string }>(recordId, "idempotency_key");
    if (seen) return seen.result;
    const result = await create();
    await this.db
      .insert(localStripeObjects)
      .values({ id: recordId, object: "idempotency_key", data: { result }, createdAt: Date.now(), updatedAt: Date.now() })
      .onConflictDoNothing();
    return result;
  }
}
