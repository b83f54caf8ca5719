import { and, count, desc, eq, gt, inArray, notExists, or } from "drizzle-orm";
import type { ConsentText } from "../../shared/consent-texts";
import { type Db, jsonList } from "../db/client";
import { consentEvents, optOuts, users } from "../db/schema";

/**
 * The consent ledger's writers and readers (docs/messaging-rules.md). Consent, opt-outs and
 * opt-ins each append a ledger row; an opt-out or opt-in also moves the current state (opt_outs
 * and the users' flags) in the same transaction, so the two can never disagree.
 */

export type Channel = "sms" | "whatsapp";
export const CHANNELS: readonly Channel[] = ["sms", "whatsapp"];
export type ConsentSource = "registration" | "contact_form" | "invitation" | "admin";
export type Language = "en" | "es";

export type ConsentInput = {
  phone: string;
  /** 'express': the person agreed to the text themselves (allows marketing); 'invitation': a friend gave the number (does not). */
  basis: "express" | "invitation";
  source: ConsentSource;
  /** The wording shown, exactly, and its version (src/shared/consent-texts.ts); null for an invitation, which shows none. */
  text: ConsentText | null;
  language: Language;
  channel?: Channel | "all";
  userId?: number | null;
  actorId?: number | null;
  at?: number;
};

export async function recordConsent(db: Db, input: ConsentInput): Promise<void> {
  await db.insert(consentEvents).values(consentRow(input));
}

/** The same row, as a statement to run in the caller's batch (e.g. with the lead or account it belongs to). */
export function consentStatement(db: Db, input: ConsentInput) {
  return db.insert(consentEvents).values(consentRow(input));
}

function consentRow(input: ConsentInput): typeof consentEvents.$inferInsert {
  return {
    phone: input.phone,
    kind: "consent",
    channel: input.channel ?? "all",
    basis: input.basis,
    source: input.source,
    text: input.text ? input.text[input.language] : null,
    textVersion: input.text?.version ?? null,
    language: input.language,
    userId: input.userId ?? null,
    actorId: input.actorId ?? null,
    at: input.at ?? Date.now(),
  };
}

export type InboundChange = {
  phone: string;
  /** The message that asked, as received, and the provider's id for it (a replay records nothing twice). */
  message: string;
  messageId: string | null;
  via: Channel;
  language: Language | null;
  /** What was understood ("STOP", "NO MAS", "STOP TEXTING"), kept on the current opt-out row. */
  keyword?: string;
  at?: number;
};

/**
 * An opt-out, honoured at once on every channel (a revocation is not limited to the channel it
 * came on). Answers whether anything changed: a number already opted out everywhere, or a
 * replayed webhook, changes nothing, and the caller then sends no second confirmation.
 */
export async function recordOptOut(db: Db, input: InboundChange): Promise<{ changed: boolean }> {
  const at = input.at ?? Date.now();
  const already = await db.select({ channel: optOuts.channel }).from(optOuts).where(eq(optOuts.phone, input.phone)).all();
  const duplicate = input.messageId ? await findByMessage(db, input.messageId, "all") : false;
  const changed = !duplicate && already.length < CHANNELS.length;
  if (duplicate) return { changed: false };
  const keyword = input.keyword ?? (input.message.trim().slice(0, 160) || "STOP");
  await db.batch([
    db
      .insert(consentEvents)
      .values({
        phone: input.phone,
        kind: "opt_out",
        channel: "all",
        source: input.via === "sms" ? "inbound_sms" : "inbound_whatsapp",
        text: input.message.slice(0, 1000),
        language: input.language,
        messageId: input.messageId,
        at,
      })
      .onConflictDoNothing(),
    db
      .insert(optOuts)
      .values(CHANNELS.map((channel) => ({ phone: input.phone, channel, keyword, at })))
      .onConflictDoNothing(),
    db.update(users).set({ smsOptOut: true, whatsappOptOut: true }).where(eq(users.phone, input.phone)),
  ]);
  return { changed };
}

/**
 * An opt-in (START) applies to the channel it came on. One sent before an opt-out already
 * recorded (a START captured and sent again after a later STOP, or one that simply arrives late)
 * is recorded and changes nothing: the later wish stands.
 */
export async function recordOptIn(db: Db, input: InboundChange): Promise<{ changed: boolean }> {
  const at = input.at ?? Date.now();
  if (input.messageId && (await findByMessage(db, input.messageId, input.via))) return { changed: false };
  const laterOptOut = await db
    .select({ id: consentEvents.id })
    .from(consentEvents)
    .where(
      and(
        eq(consentEvents.phone, input.phone),
        eq(consentEvents.kind, "opt_out"),
        or(eq(consentEvents.channel, "all"), eq(consentEvents.channel, input.via)),
        gt(consentEvents.at, at),
      ),
    )
    .get();
  if (laterOptOut) return { changed: false };
  const was = await db
    .select({ phone: optOuts.phone })
    .from(optOuts)
    .where(and(eq(optOuts.phone, input.phone), eq(optOuts.channel, input.via)))
    .get();
  await db.batch([
    db.insert(consentEvents).values({
      phone: input.phone,
      kind: "opt_in",
      channel: input.via,
      source: input.via === "sms" ? "inbound_sms" : "inbound_whatsapp",
      text: input.message.slice(0, 1000),
      language: input.language,
      messageId: input.messageId,
      at,
    }),
    db.delete(optOuts).where(and(eq(optOuts.phone, input.phone), eq(optOuts.channel, input.via))),
    db
      .update(users)
      .set(input.via === "sms" ? { smsOptOut: false } : { whatsappOptOut: false })
      .where(eq(users.phone, input.phone)),
  ]);
  return { changed: !!was };
}

async function findByMessage(db: Db, messageId: string, channel: Channel | "all"): Promise<boolean> {
  const row = await db
    .select({ id: consentEvents.id })
    .from(consentEvents)
    .where(and(eq(consentEvents.messageId, messageId), eq(consentEvents.channel, channel)))
    .get();
  return !!row;
}

export type ConsentState = {
  phone: string;
  optedOut: Record<Channel, boolean>;
  /** The strongest basis on record: 'express' allows marketing; 'invitation' only says how we got the number. */
  basis: "express" | "invitation" | null;
  marketingAllowed: Record<Channel, boolean>;
};

export async function consentState(db: Db, phone: string): Promise<ConsentState> {
  const [outs, bases, flags] = await db.batch([
    db.select({ channel: optOuts.channel }).from(optOuts).where(eq(optOuts.phone, phone)),
    db
      .selectDistinct({ basis: consentEvents.basis })
      .from(consentEvents)
      .where(and(eq(consentEvents.phone, phone), eq(consentEvents.kind, "consent"))),
    db.select({ sms: users.smsOptOut, whatsapp: users.whatsappOptOut }).from(users).where(eq(users.phone, phone)),
  ]);
  const optedOut = {
    sms: outs.some((o) => o.channel === "sms") || flags.some((f) => f.sms),
    whatsapp: outs.some((o) => o.channel === "whatsapp") || flags.some((f) => f.whatsapp),
  };
  const basis = bases.some((b) => b.basis === "express") ? "express" : bases.some((b) => b.basis === "invitation") ? "invitation" : null;
  return {
    phone,
    optedOut,
    basis,
    marketingAllowed: { sms: basis === "express" && !optedOut.sms, whatsapp: basis === "express" && !optedOut.whatsapp },
  };
}

export type ConsentEventView = {
  id: number;
  kind: "consent" | "opt_out" | "opt_in";
  channel: Channel | "all";
  basis: "express" | "invitation" | null;
  source: string;
  text: string | null;
  textVersion: string | null;
  language: Language | null;
  userId: number | null;
  actorId: number | null;
  at: number;
};

/** A number's history, newest first, a page at a time. */
export async function consentHistory(db: Db, phone: string, page: number, pageSize: number) {
  const [[total], rows] = await db.batch([
    db.select({ n: count() }).from(consentEvents).where(eq(consentEvents.phone, phone)),
    db
      .select({
        id: consentEvents.id,
        kind: consentEvents.kind,
        channel: consentEvents.channel,
        basis: consentEvents.basis,
        source: consentEvents.source,
        text: consentEvents.text,
        textVersion: consentEvents.textVersion,
        language: consentEvents.language,
        userId: consentEvents.userId,
        actorId: consentEvents.actorId,
        at: consentEvents.at,
      })
      .from(consentEvents)
      .where(eq(consentEvents.phone, phone))
      .orderBy(desc(consentEvents.at), desc(consentEvents.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
  ]);
  return { total: total?.n ?? 0, page, pageSize, rows: rows as ConsentEventView[] };
}

/** Numbers among `phones` that may receive marketing on the channel (consent basis, not opted out). */
export async function marketingAllowedAmong(db: Db, phones: string[], channel: Channel): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const rows = await db
    .select({ phone: consentEvents.phone })
    .from(consentEvents)
    .where(
      and(
        inArray(consentEvents.phone, jsonList(phones)),
        eq(consentEvents.kind, "consent"),
        eq(consentEvents.basis, "express"),
        notExists(
          db
            .select({ phone: optOuts.phone })
            .from(optOuts)
            .where(and(eq(optOuts.phone, consentEvents.phone), eq(optOuts.channel, channel))),
        ),
      ),
    )
    .all();
  return new Set(rows.map((r) => r.phone));
}
