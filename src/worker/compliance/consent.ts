import { and, count, desc, eq, gt, inArray, isNull, lte, notExists, or, sql } from "drizzle-orm";
import { CONSENT_CONFIRMATION_REQUEST, type ConsentText } from "../../shared/consent-texts";
import { type Db, jsonList } from "../db/client";
import { consentConfirmations, consentEvents, optOuts, users } from "../db/schema";

/**
 * The consent ledger's writers and readers (docs/messaging-rules.md). Consent, opt-outs and
 * opt-ins each append a ledger row; an opt-out or opt-in also moves the current state (opt_outs
 * and the users' flags) in the same transaction, so the two can never disagree.
 */

export type Channel = "sms" | "whatsapp";
export const CHANNELS: readonly Channel[] = ["sms", "whatsapp"];
export type ConsentSource = "registration" | "contact_form" | "invitation" | "admin";
export type Language = "en" | "es";

export type ConsentBasis = "express" | "unconfirmed" | "invitation";

export type ConsentInput = {
  phone: string;
  /**
   * 'express': the person agreed to the text themselves and the number is proven theirs (allows
   * marketing); 'unconfirmed': a box ticked for a number nobody has proven (allows nothing until the
   * number confirms it); 'invitation': a friend gave the number (allows nothing).
   */
  basis: ConsentBasis;
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
  /** The strongest basis on record: 'express' allows marketing; 'unconfirmed' and 'invitation' only say how we got the number. */
  basis: ConsentBasis | null;
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
  const basis = (["express", "unconfirmed", "invitation"] as const).find((b) => bases.some((row) => row.basis === b)) ?? null;
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
  basis: ConsentBasis | null;
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

/** A number's consent: what it allows now, and one page of its history (the console's user page). */
export async function consentOf(db: Db, phone: string, page: number, pageSize: number) {
  const [state, history] = await Promise.all([consentState(db, phone), consentHistory(db, phone, page, pageSize)]);
  return { state, history };
}

/** Numbers among `phones` that may receive marketing on the channel (confirmed express consent, not opted out). */
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

/**
 * Confirming a tick appends an 'express' row with the same words, version, language and source as
 * the 'unconfirmed' one (which stays, as the record of the tick), so the ledger stays append-only
 * and every marketing check, which reads 'express' only, needs nothing else.
 */
function confirmedCopyOf(db: Db, where: ReturnType<typeof and>, at: number, messageId: string | null) {
  const e = consentEvents;
  return db.insert(consentEvents).select(
    db
      .select({
        id: sql<number>`NULL`.as("id"),
        phone: e.phone,
        kind: e.kind,
        channel: e.channel,
        basis: sql<"express">`'express'`.as("basis"),
        source: e.source,
        text: e.text,
        textVersion: e.textVersion,
        language: e.language,
        userId: e.userId,
        actorId: e.actorId,
        messageId: sql<string | null>`${messageId}`.as("message_id"),
        at: sql<number>`${at}`.as("at"),
      })
      .from(e)
      .where(where),
  );
}

const registrationTick = (userId: number) =>
  and(eq(consentEvents.userId, userId), eq(consentEvents.kind, "consent"), eq(consentEvents.source, "registration"), eq(consentEvents.basis, "unconfirmed"));

/** The registrant proved the phone with the registration password: their marketing tick is confirmed (a statement for their batch). */
export function confirmRegistrationConsentStatement(db: Db, userId: number, at: number) {
  return confirmedCopyOf(db, registrationTick(userId), at, null);
}

/**
 * Someone else proved the phone: the tick made at registration was never theirs, and goes (a
 * statement for their batch). It allowed nothing while it stood.
 */
export function dropRegistrationConsentStatement(db: Db, userId: number) {
  return db.delete(consentEvents).where(registrationTick(userId));
}

/** One confirmation text per number in this long: a form ticked again and again texts nobody twice. */
export const CONSENT_CONFIRMATION_RESEND_MS = 90 * 24 * 3600_000;
/** How long a YES to the confirmation text counts. */
export const CONSENT_CONFIRMATION_REPLY_MS = 30 * 24 * 3600_000;

/** The confirmation text, in the language of the tick (GSM-7, one segment: src/shared/consent-texts.ts). */
export function consentConfirmationText(language: Language): string {
  return CONSENT_CONFIRMATION_REQUEST[language];
}

/**
 * Whether a tick for this number may be asked about by text: not when the number already has
 * confirmed consent or opted out of SMS, nor when it was asked within CONSENT_CONFIRMATION_RESEND_MS.
 * Reads only: the caller then checks the sending limits and claims the text with `claimConsentConfirmation`.
 */
export async function consentConfirmationDue(db: Db, phone: string, now: number): Promise<boolean> {
  const [express, outs, asked] = await db.batch([
    db
      .select({ id: consentEvents.id })
      .from(consentEvents)
      .where(and(eq(consentEvents.phone, phone), eq(consentEvents.kind, "consent"), eq(consentEvents.basis, "express")))
      .limit(1),
    db
      .select({ phone: optOuts.phone })
      .from(optOuts)
      .where(and(eq(optOuts.phone, phone), eq(optOuts.channel, "sms"))),
    db.select({ sentAt: consentConfirmations.sentAt }).from(consentConfirmations).where(eq(consentConfirmations.phone, phone)),
  ]);
  const lastAsked = asked[0]?.sentAt;
  return express.length === 0 && outs.length === 0 && (lastAsked === undefined || lastAsked <= now - CONSENT_CONFIRMATION_RESEND_MS);
}

/**
 * Claims the number's one confirmation text for this tick: true if this request may send it (no
 * text in CONSENT_CONFIRMATION_RESEND_MS). Conditional, so two ticks at once send one text.
 */
export async function claimConsentConfirmation(db: Db, input: { phone: string; consentEventId: number; language: Language; now: number }) {
  const row = await db
    .insert(consentConfirmations)
    .values({ phone: input.phone, consentEventId: input.consentEventId, language: input.language, sentAt: input.now })
    .onConflictDoUpdate({
      target: consentConfirmations.phone,
      set: { consentEventId: input.consentEventId, language: input.language, sentAt: input.now, confirmedAt: null },
      setWhere: lte(consentConfirmations.sentAt, input.now - CONSENT_CONFIRMATION_RESEND_MS),
    })
    .returning({ phone: consentConfirmations.phone })
    .get();
  return row !== undefined;
}

/**
 * A YES (or START) from a number we asked: the tick the text named becomes 'express', once,
 * recorded with the reply's provider id. Answers the language to thank the person in, or null when
 * there was nothing to confirm (never asked, asked too long ago, already confirmed, a replay).
 */
export async function confirmConsentByReply(db: Db, input: { phone: string; messageId: string | null; at: number }): Promise<Language | null> {
  const c = consentConfirmations;
  const [updated] = await db.batch([
    db
      .update(c)
      .set({ confirmedAt: input.at })
      .where(and(eq(c.phone, input.phone), isNull(c.confirmedAt), gt(c.sentAt, input.at - CONSENT_CONFIRMATION_REPLY_MS), lte(c.sentAt, input.at)))
      .returning({ language: c.language }),
    confirmedCopyOf(
      db,
      and(
        eq(consentEvents.basis, "unconfirmed"),
        sql`${consentEvents.id} = (SELECT ${c.consentEventId} FROM ${c} WHERE ${c.phone} = ${input.phone} AND ${c.confirmedAt} = ${input.at})`,
      ),
      input.at,
      input.messageId,
    ).onConflictDoNothing(),
  ]);
  return updated[0]?.language ?? null;
}
