import { env } from "cloudflare:test";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { MESSAGE_STATUSES, type MessageStatus } from "../../shared/campaigns";
import { type Db, dbFor, jsonList } from "../db/client";
import { campaignMessages, campaigns, deliveryReceipts } from "../db/schema";
import { createUser, uniquePhone, uniqueTag } from "../test/fixtures";
import {
  claimMessage,
  deadLetterMessage,
  deferMessage,
  eraseMessagesStatements,
  failInDoubt,
  failMessage,
  failUnqueuedStatement,
  holdMessage,
  IN_DOUBT,
  recordSent,
  retryMessage,
  skipMessage,
  stampRequeued,
  takeForRetry,
  touchRequeued,
} from "./message-ledger";
import { recordDeliveryStatus, settleFromCallback } from "./message-receipts";
import { ALLOWED_PAIRS, allows, MESSAGE_TRANSITIONS, type MessageEvent } from "./message-transitions";

/**
 * Every writer of the message ledger, run on a row in each status: it moves the row only as the
 * transition table allows (from one of its event's statuses to one of its targets) and leaves any
 * other row exactly as it was. Each row meets the writers' further conditions (`when`): its claim
 * has run out, it has no hold, its error is in doubt, it carries the provider id the receipts name.
 */

const LEASE_MS = 120_000;
type Row = { id: number; campaignId: number; providerId: string; userId: number };
/** What a writer does, as the events it applies in order (a target of null: the status stays). */
type Writer = { name: string; events: [MessageEvent, MessageStatus | null][]; run: (db: Db, row: Row) => Promise<unknown> };
const error = { errorCode: "e", errorMessage: "an error" };

const keep = (db: Db, providerId: string, status: "delivered" | "failed") =>
  db.insert(deliveryReceipts).values({ providerId, status, errorCode: status === "failed" ? "30003" : null, receivedAt: Date.now() });

const WRITERS: Writer[] = [
  { name: "claimMessage", events: [["claim", "sending"]], run: (db, r) => claimMessage(db, r.id, Date.now(), LEASE_MS) },
  { name: "holdMessage", events: [["hold", "sending"]], run: (db, r) => holdMessage(db, r.id, Date.now() + 5_000, error) },
  { name: "recordSent", events: [["sent", "sent"]], run: (db, r) => recordSent(db, r, `${r.providerId}-new`) },
  ...(["delivered", "failed"] as const).map(
    (to): Writer => ({
      name: `recordSent with a kept ${to} receipt`,
      events: [
        ["sent", "sent"],
        ["earlyReceipt", to],
      ],
      run: async (db, r) => {
        await keep(db, r.providerId, to);
        await recordSent(db, r, r.providerId);
      },
    }),
  ),
  { name: "retryMessage", events: [["retry", "pending"]], run: (db, r) => retryMessage(db, r.id, error) },
  { name: "retryMessage (a fault of ours)", events: [["retry", "pending"]], run: (db, r) => retryMessage(db, r.id, null) },
  { name: "failMessage", events: [["failed", "failed"]], run: (db, r) => failMessage(db, r, error) },
  { name: "failInDoubt", events: [["inDoubt", "failed"]], run: (db, r) => failInDoubt(db, r) },
  {
    name: "skipMessage",
    events: [["skipped", "skipped"]],
    run: (db, r) => skipMessage(db, r, { errorCode: "opted_out", errorMessage: "The number opted out" }),
  },
  { name: "deferMessage", events: [["deferred", "deferred"]], run: (db, r) => deferMessage(db, r.id, Date.now() + 3_600_000) },
  { name: "deadLetterMessage", events: [["deadLettered", "failed"]], run: (db, r) => deadLetterMessage(db, r, "Gave up") },
  { name: "failUnqueuedStatement", events: [["expansionFailed", "failed"]], run: (db, r) => failUnqueuedStatement(db, r.campaignId) },
  ...(["accepted", "delivered", "failed"] as const).map(
    (status): Writer => ({
      name: `settleFromCallback (${status})`,
      events: [["callback", status === "accepted" ? "sent" : status], ...(status === "accepted" ? [] : [["receipt", status] as [MessageEvent, MessageStatus]])],
      run: (db, r) => settleFromCallback(db, { messageId: r.id, providerId: r.providerId, status, errorCode: null, errorMessage: null }),
    }),
  ),
  ...(["delivered", "failed"] as const).map(
    (status): Writer => ({
      name: `recordDeliveryStatus (${status})`,
      events: [["receipt", status]],
      run: (db, r) => recordDeliveryStatus(db, r.providerId, status, null, null),
    }),
  ),
  {
    name: "erasure: unsent skipped",
    events: [["erased", "skipped"]],
    run: (db, r) => eraseMessagesStatements(db, { userId: r.userId, phone: null }, Date.now())[0],
  },
  {
    name: "erasure: failed closed to retries",
    events: [["retryTaken", null]],
    run: (db, r) => eraseMessagesStatements(db, { userId: r.userId, phone: null }, Date.now())[1],
  },
  { name: "takeForRetry", events: [["retryTaken", null]], run: (db, r) => takeForRetry(db, r.campaignId, sql<number>`${r.campaignId}`) },
  { name: "stampRequeued", events: [["requeue", null]], run: (db, r) => stampRequeued(db, jsonList([r.id]), Date.now() + 1) },
  { name: "touchRequeued", events: [["requeue", null]], run: (db, r) => touchRequeued(db, jsonList([r.id]), Date.now() + 1) },
];

/** The status the table says a writer's events leave a row in, from `from`, and the pairs they move it through. */
function expected(writer: Writer, from: MessageStatus) {
  let status = from;
  const pairs: string[] = [];
  for (const [event, target] of writer.events) {
    const to = target ?? status;
    if (!allows(event, status, to)) continue;
    pairs.push(`${status}>${to}`);
    status = to;
  }
  return { status, pairs };
}

async function rowIn(db: Db, status: MessageStatus, userId: number): Promise<Row> {
  const campaign = await db
    .insert(campaigns)
    .values({ app: "flex", channel: "sms", source: "list", audience: {}, authorId: userId, idempotencyKey: uniqueTag("ledger"), status: "sending" })
    .returning({ id: campaigns.id })
    .get();
  const providerId = uniqueTag("SM");
  const row = await db
    .insert(campaignMessages)
    .values({
      campaignId: campaign.id,
      userId,
      phone: uniquePhone(),
      status,
      providerId,
      ...IN_DOUBT,
      attempts: 1,
      firstClaimedAt: Date.now() - 3_600_000,
      updatedAt: Date.now() - 3_600_000,
    })
    .returning({ id: campaignMessages.id })
    .get();
  return { id: row.id, campaignId: campaign.id, providerId, userId };
}

const read = (db: Db, id: number) => db.select().from(campaignMessages).where(eq(campaignMessages.id, id)).get();

describe("the message ledger's transitions", () => {
  it("lets each writer move a row only as the table allows, and leaves a row in any other status as it was", async () => {
    const db = dbFor(env.DB);
    const user = await createUser();
    const covered = new Set<string>();
    const outcomes: string[] = [];
    const wanted: string[] = [];
    for (const writer of WRITERS) {
      for (const from of MESSAGE_STATUSES) {
        const row = await rowIn(db, from, user.id);
        const before = await read(db, row.id);
        await writer.run(db, row);
        const after = await read(db, row.id);
        const want = expected(writer, from);
        const moved = JSON.stringify(after) !== JSON.stringify(before);
        outcomes.push(`${writer.name} from ${from}: ${after?.status} (${moved ? "written" : "unchanged"})`);
        wanted.push(`${writer.name} from ${from}: ${want.status} (${want.pairs.length > 0 ? "written" : "unchanged"})`);
        if (moved && after?.status === want.status) for (const pair of want.pairs) covered.add(pair);
      }
    }
    expect(outcomes).toEqual(wanted);
    // Every pair of the table is made by some writer.
    expect([...covered].sort()).toEqual([...ALLOWED_PAIRS].sort());
  });

  it("allows no pair outside the table, and names only statuses that exist", () => {
    for (const [event, t] of Object.entries(MESSAGE_TRANSITIONS)) {
      for (const s of [...t.from, ...t.to]) expect(MESSAGE_STATUSES, event).toContain(s);
    }
    // A settled row never goes back to be sent, and a skipped one never moves again.
    for (const from of ["sent", "delivered", "failed", "skipped"] as const) {
      for (const to of ["pending", "deferred", "sending"] as const) expect(ALLOWED_PAIRS.has(`${from}>${to}`), `${from}>${to}`).toBe(false);
    }
    for (const to of MESSAGE_STATUSES) expect(ALLOWED_PAIRS.has(`skipped>${to}`) || ALLOWED_PAIRS.has(`delivered>${to}`), to).toBe(false);
  });
});
