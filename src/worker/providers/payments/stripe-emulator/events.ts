import { and, asc, eq, lt, sql } from "drizzle-orm";
import Stripe from "stripe";
import { localStripeObjects } from "../../../db/schema";
import { stripeSignatureHeader } from "../stripe-signature";
import type { ProviderDeps } from "../types";
import type { Json } from "./objects";
import { type EmulatorStore, emulatorId, seconds } from "./store";

/**
 * The emulator's events: Stripe-shaped, signed with STRIPE_WEBHOOK_SECRET in the t=…,v1=…
 * scheme, kept, and handed to the app's webhook handler (`deliverEvent`) as Stripe posts them.
 * An event the handler could not take is delivered again later, as Stripe retries.
 */
export class EmulatorEvents {
  constructor(
    private readonly store: EmulatorStore,
    private readonly signingSecret: string,
    private readonly deps: ProviderDeps,
  ) {}

  async emit(type: string, object: Json, extra: Json = {}): Promise<void> {
    const event = {
      id: emulatorId("evt"),
      object: "event",
      api_version: Stripe.API_VERSION,
      created: seconds(Date.now()),
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      ...extra,
    };
    const payload = JSON.stringify(event);
    await this.store.put({ id: event.id, object: "event", delivered: false, payload });
    await this.deliver(event.id, payload);
  }

  private async deliver(eventId: string, payload: string): Promise<boolean> {
    try {
      const header = await stripeSignatureHeader(payload, this.signingSecret);
      const outcome = await this.deps.deliverEvent(payload, header);
      if (outcome.result === "rejected" || outcome.result === "in_flight") throw new Error(`webhook answered ${outcome.result}`);
      await this.store.overwrite(eventId, { delivered: true, payload });
      return true;
    } catch (err) {
      this.deps.log.error("local_stripe.delivery_failed", { eventId, error: err instanceof Error ? err.message : String(err) });
      return false;
    }
  }

  /** Events the handler has not taken, 30 seconds on, delivered again (25 a run, oldest first). Answers how many it took. */
  async redeliverPending(now: number): Promise<number> {
    const pending = await this.store.db
      .select({ id: localStripeObjects.id, data: localStripeObjects.data })
      .from(localStripeObjects)
      .where(
        and(
          eq(localStripeObjects.object, "event"),
          sql`json_extract(${localStripeObjects.data}, '$.delivered') = 0`,
          lt(localStripeObjects.updatedAt, now - 30_000),
        ),
      )
      .orderBy(asc(localStripeObjects.createdAt))
      .limit(25);
    let redelivered = 0;
    for (const row of pending) if (await this.deliver(row.id, String(row.data.payload))) redelivered++;
    return redelivered;
  }
}
