import { DurableObject } from "cloudflare:workers";

/**
 * Exact pacing per sender (docs/architecture.md, the messaging pipeline). Consumers scale out, so no consumer can pace by itself:
 * every send first asks the one pacer of its sender (an SMS from-number, a WhatsApp phone-number
 * id) for a slot, and sends at that moment, never before. Slots are handed out 1/R seconds apart,
 * R = SEND_RATE_PER_SECOND, in order of asking, however far ahead that is; a consumer holding a
 * slot far in the future re-queues its job to come back just before it rather than sleep.
 *
 * A sender that sat idle may use a small burst of slots "in the past" (a token bucket of
 * BURST_SECONDS·R slots), so over any window T at most R·T + burst messages leave, which a
 * provider's own bucket accepts; without it each pause between consumer batches would be
 * throughput lost for good. Half a second: the pauses between one queue batch's last slot and the
 * next batch's first reach that on the local runtime, so a shorter burst cannot cover them and the
 * steady rate falls below R; it stays well inside a provider bucket of R (one second's worth), so
 * it never brings on a 429.
 */
export const BURST_SECONDS = 0.5;
/** A queue batch holds at most 100 messages; no caller needs more slots at once. */
export const MAX_SLOTS_PER_CALL = 100;

export function sendRate(env: Pick<Env, "SEND_RATE_PER_SECOND">): number {
  const rate = Number(env.SEND_RATE_PER_SECOND);
  if (!Number.isFinite(rate) || rate <= 0) throw new Error(`SEND_RATE_PER_SECOND must be a positive number, not "${env.SEND_RATE_PER_SECOND}"`);
  return rate;
}

/**
 * The scheduling rule, kept pure so it can be tested without a Durable Object: given the next free
 * slot, the clock and the rate, the slot granted (epoch ms, never before now) and the next free one.
 */
export function nextSlot(nextFree: number, now: number, rate: number): { at: number; nextFree: number } {
  const interval = 1000 / rate;
  const burst = Math.max(1, Math.floor(rate * BURST_SECONDS));
  // An idle sender has built up at most `burst` slots; older ones are gone.
  const start = Math.max(nextFree, now - (burst - 1) * interval);
  return { at: Math.max(now, Math.ceil(start)), nextFree: start + interval };
}

export class SendPacer extends DurableObject<Env> {
  private nextFree: number;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Kept in storage too, so a restarted object never hands out a slot it already gave away.
    this.nextFree = ctx.storage.kv.get<number>("nextFree") ?? 0;
  }

  /**
   * The next send slot (epoch ms). Calls are serialised by the object, so no two callers share one.
   * The caller passes the rate (its SEND_RATE_PER_SECOND) so the setting is read in one place.
   */
  reserve(ratePerSecond: number): number {
    return this.reserveMany(ratePerSecond, 1)[0]!;
  }

  /**
   * `count` consecutive slots in one call, as the jobs of one queue batch ask for them together
   * (src/worker/messaging/dispatch-batch.ts): the same slots as `count` calls in a row, one round trip.
   */
  reserveMany(ratePerSecond: number, count: number): number[] {
    if (!Number.isFinite(ratePerSecond) || ratePerSecond <= 0) throw new Error(`Invalid send rate ${ratePerSecond}`);
    if (!Number.isInteger(count) || count < 1 || count > MAX_SLOTS_PER_CALL) throw new Error(`Invalid slot count ${count}`);
    const now = Date.now();
    const slots: number[] = [];
    for (let i = 0; i < count; i++) {
      const { at, nextFree } = nextSlot(this.nextFree, now, ratePerSecond);
      this.nextFree = nextFree;
      slots.push(at);
    }
    this.ctx.storage.kv.put("nextFree", this.nextFree);
    return slots;
  }
}

/** The pacer of one sender, e.g. "sms:+15005550006" or "whatsapp:100000000000000". */
export function pacerFor(env: Pick<Env, "SEND_PACER">, sender: string) {
  return env.SEND_PACER.get(env.SEND_PACER.idFromName(sender));
}
