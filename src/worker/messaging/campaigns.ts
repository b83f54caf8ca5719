import { and, asc, count, desc, eq, getTableColumns, gt, inArray, isNull, max, min, sql } from "drizzle-orm";
import { z } from "zod";
import { driverAudienceSchema, invitationAudienceSchema } from "../../shared/audience";
import {
  type CampaignView,
  EXCLUSION_REASONS,
  type LedgerRow,
  type MessageCounts,
  type MessageStatus,
  type ReviewSummary,
  type SendOutcome,
} from "../../shared/campaigns";
import { CAMPAIGN_PURPOSES, type CampaignPurpose, categoryOf, smsBodyFor } from "../../shared/marketing";
import type { Page } from "../../shared/paging";
import { pageOffset } from "../../shared/paging";
import { checkSmsPhone, normalizeUsPhone, PHONE_REFUSAL_MESSAGES, type PhoneCheck } from "../../shared/phone";
import { countSms, fitsOneSegment } from "../../shared/sms";
import { parametersOf, placeholderCount, type TemplateParameters, type TemplateRef } from "../../shared/templates";
import { describeIssue } from "../../shared/validation";
import { auditInsertWhen, changedAbove } from "../auth/audit";
import type { SessionUser } from "../auth/middleware";
import { deferralByAreaCode, deferralKey } from "../compliance/quiet-hours";
import { type Db, dbFor, jsonList } from "../db/client";
import { auditLog, campaignExclusions, campaignMessages, campaigns, users } from "../db/schema";
import { ApiError } from "../errors";
import type { Logger } from "../log";
import type { Job } from "../queue";
import { MAX_DELAY_SECONDS } from "../queue";
import { type Channel, type RecipientSource, recipientGroups, type SendRules } from "./audience";
import { csvRow } from "./csv";
import { leaseMs } from "./dispatch";
import { findTemplate } from "./templates";

/** An SMS whose limit the owner lifted still stops somewhere: ten segments (Twilio's own advice). */
export const MAX_LIFTED_SEGMENTS = 10;
export const MAX_LIST_PHONES = 20_000;
export const MAX_EXCLUDED_PHONES = 50_000;
/** How far ahead a campaign may be scheduled. */
export const MAX_SCHEDULE_AHEAD_MS = 30 * 86_400_000;
/** Meta does not deliver marketing templates to US (+1) numbers (the WhatsApp Business Platform's pause of April 2025). */
export const WHATSAPP_MARKETING_US_REFUSAL =
  "Meta does not deliver WhatsApp marketing templates to +1 (US) numbers. Send this as an SMS, or choose a utility template for a service notice.";

export { type CampaignView, type LedgerRow, MESSAGE_STATUSES as STATUSES, type MessageStatus } from "../../shared/campaigns";
export type Counts = MessageCounts;

/**
 * A template's placeholder values as Meta's send call takes them: header and body text parameters
 * (the type may be written in capitals, as the template list writes it). A component without
 * parameters (the old client sent back the template's own components, as the list gave them) has
 * nothing to fill in and is left out.
 */
export const templateParametersSchema = z
  .array(
    z.object({
      type: z.string().max(20),
      parameters: z
        .array(z.object({ type: z.literal("text", { message: "Only text parameters can be given" }), text: z.string().min(1).max(1024) }))
        .max(20)
        .optional(),
    }),
  )
  .max(20)
  .transform((components, ctx) => {
    const given: TemplateParameters = [];
    components.forEach((c, i) => {
      if (!c.parameters) return;
      const type = c.type.toLowerCase();
      if (type === "header" || type === "body") given.push({ type, parameters: c.parameters });
      else ctx.addIssue({ code: "custom", path: [i, "type"], message: "Only header and body parameters can be given" });
    });
    return given;
  });

/** POST /api/admin/campaigns (docs/api.md). Audience filters are checked per source below. */
export const campaignRequestSchema = z.object({
  idempotencyKey: z.string().trim().min(1).max(200),
  source: z.enum(["drivers", "invitations", "list"]),
  channel: z.enum(["sms", "whatsapp"]),
  app: z.enum(["flex", "spark"]).optional(),
  message: z.string().max(1600).optional(),
  template: z.object({ name: z.string().min(1).max(512), language: z.string().min(1).max(20), components: templateParametersSchema.optional() }).optional(),
  audience: z.record(z.string(), z.unknown()).optional(),
  excludedPhones: z.array(z.string().max(40)).max(MAX_EXCLUDED_PHONES).optional(),
  phones: z.array(z.string().max(40)).max(MAX_LIST_PHONES).optional(),
  liftLimit: z.boolean().optional(),
  /** Marketing, or the transactional kinds (service notice, payment notice, code): the panels ask; nothing defaults. */
  purpose: z.enum(CAMPAIGN_PURPOSES),
  /** The message's language; the marketing opt-out line is written in it. */
  language: z.enum(["en", "es"]).default("en"),
  /** Start at this instant (epoch ms) instead of at once; cancellable until then. */
  scheduledAt: z.number().int().positive().max(8_640_000_000_000).optional(),
});
export type CampaignRequest = z.infer<typeof campaignRequestSchema>;

/** What a campaign is, once the request is understood. */
export type CampaignInput = {
  idempotencyKey: string;
  app: "flex" | "spark";
  channel: Channel;
  message: string | null;
  template: TemplateRef | null;
  recipients: RecipientSource;
  excludedPhones: string[];
  liftLimit: boolean;
  purpose: CampaignPurpose;
  category: "marketing" | "transactional";
  language: "en" | "es";
  scheduledAt: number | null;
};

type Issue = { path: string; message: string; value?: string; reason?: string };

/** Any +1-shaped number: deselected review rows are phones already in the database, whatever their area code. */
function anyUsPhone(value: string): PhoneCheck {
  const e164 = normalizeUsPhone(value);
  return e164 ? { ok: true, e164 } : { ok: false, reason: "format" };
}

/**
 * Phones as typed → E.164, de-duplicated; every bad one is named with the reason, so the admin can
 * fix the list. Recipients must be numbers we may text (src/shared/phone.ts `checkSmsPhone`).
 */
export function normalizePhones(values: string[], path: string, check: (value: string) => PhoneCheck = checkSmsPhone): { phones: string[]; issues: Issue[] } {
  const seen = new Set<string>();
  const issues: Issue[] = [];
  values.forEach((value, i) => {
    const checked = check(value);
    if (!checked.ok) issues.push({ path: `${path}.${i}`, message: PHONE_REFUSAL_MESSAGES[checked.reason], value, reason: checked.reason });
    else seen.add(checked.e164);
  });
  return { phones: [...seen], issues };
}

function validationError(issues: Issue[]): ApiError {
  const first = issues[0]!;
  const message = issues.every((i) => i.value !== undefined)
    ? `${issues.length} phone number${issues.length === 1 ? " is" : "s are"} not valid: ${issues
        .slice(0, 5)
        .map((i) => i.value)
        .join(", ")}${issues.length > 5 ? " …" : ""}`
    : `${first.path}: ${first.message}`;
  return new ApiError("validation_failed", message, { details: issues });
}

/** The request's shape is valid; now its meaning: the audience of its source, phone lists, message or template. */
export function toCampaignInput(req: CampaignRequest): CampaignInput {
  const issues: Issue[] = [];
  let recipients: RecipientSource | undefined;
  const app = req.app ?? "flex";
  if (req.source === "list") {
    if (!req.phones || req.phones.length === 0) issues.push({ path: "phones", message: "Give at least one phone number" });
    else {
      const { phones, issues: bad } = normalizePhones(req.phones, "phones");
      issues.push(...bad);
      recipients = { source: "list", phones, app };
    }
  } else {
    const schema = req.source === "drivers" ? driverAudienceSchema : invitationAudienceSchema;
    const parsed = schema.safeParse({ ...(req.audience ?? {}), ...(req.source === "drivers" && req.app && !req.audience?.app ? { app: req.app } : {}) });
    if (!parsed.success) issues.push(...parsed.error.issues.map((i) => describeIssue(i, ["audience"])));
    else {
      // Paging is the review table's business, not the campaign's.
      const { page: _page, pageSize: _pageSize, ...filters } = parsed.data;
      recipients =
        req.source === "drivers"
          ? { source: "drivers", filters: filters as Extract<RecipientSource, { source: "drivers" }>["filters"] }
          : { source: "invitations", filters: filters as Extract<RecipientSource, { source: "invitations" }>["filters"] };
    }
  }
  const excluded = normalizePhones(req.excludedPhones ?? [], "excludedPhones", anyUsPhone);
  issues.push(...excluded.issues);
  if (req.channel === "sms" && !req.message?.trim()) issues.push({ path: "message", message: "Write the message" });
  if (req.channel === "whatsapp" && !req.template) issues.push({ path: "template", message: "Choose a template" });
  if (issues.length > 0 || !recipients) throw validationError(issues);
  const resolvedApp = recipients.source === "drivers" ? recipients.filters.app : app;
  const language = req.language ?? "en";
  return {
    idempotencyKey: req.idempotencyKey,
    app: resolvedApp,
    channel: req.channel,
    // A marketing SMS goes with its opt-out line; what is stored is exactly what is sent.
    message: req.channel === "sms" ? smsBodyFor(req.message!, req.purpose, language).body : null,
    template: req.channel === "whatsapp" ? req.template! : null,
    recipients,
    excludedPhones: excluded.phones,
    liftLimit: req.liftLimit ?? false,
    purpose: req.purpose,
    category: categoryOf(req.purpose),
    language,
    scheduledAt: req.scheduledAt ?? null,
  };
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The rules that need the author or the database: the one-segment limit (the owner's to lift),
 * the template (approved, and only for admins with billingDetails, who alone may list templates:
 * a template name someone else guessed or was told is refused as well), referral filters (the
 * referral list is billing data too).
 */
async function checkContent(db: Db, author: SessionUser, input: CampaignInput) {
  if (input.liftLimit && author.roleName !== "owner")
    throw new ApiError("forbidden", "Only the owner may lift the character limit", { details: { reason: "lift_limit_owner_only" } });
  if (input.channel === "whatsapp" && !author.roleProperties?.billingDetails) {
    throw new ApiError("forbidden", "Requires the billingDetails permission", { details: { reason: "billing_details", permission: "billingDetails" } });
  }
  if (input.recipients.source === "drivers" && (input.recipients.filters.referral?.length ?? 0) > 0 && !author.roleProperties?.billingDetails) {
    throw new ApiError("forbidden", "Requires the billingDetails permission", { details: { reason: "billing_details", permission: "billingDetails" } });
  }
  if (input.channel === "sms") {
    const count = countSms(input.message!);
    if (!input.liftLimit && !fitsOneSegment(input.message!)) {
      throw new ApiError("unprocessable", `The message needs ${count.messages} SMS segments; the limit is one`, {
        details: { ...count, reason: "sms_over_one_segment" },
      });
    }
    if (count.messages > MAX_LIFTED_SEGMENTS) {
      throw new ApiError("unprocessable", `The message needs ${count.messages} SMS segments; at most ${MAX_LIFTED_SEGMENTS} can be sent`, {
        details: { ...count, max: MAX_LIFTED_SEGMENTS, reason: "sms_over_max_segments" },
      });
    }
  } else {
    const template = await findTemplate(db, input.template!);
    if (!template) {
      throw new ApiError("unprocessable", `There is no approved WhatsApp template ${input.template!.name} (${input.template!.language})`, {
        details: { reason: "template_not_approved", name: input.template!.name, language: input.template!.language },
      });
    }
    // Every placeholder of the template gets its value, and no value is left without a placeholder.
    for (const part of ["header", "body"] as const) {
      const expected = placeholderCount(template.components.find((c) => c.type === part.toUpperCase())?.text);
      const given = parametersOf(input.template!.components, part).length;
      if (given !== expected) {
        throw new ApiError(
          "unprocessable",
          `${template.name} has ${expected} ${part} placeholder${expected === 1 ? "" : "s"}; ${given} value${given === 1 ? " was" : "s were"} given`,
          {
            details: { field: "template.components", part, expected, given, reason: "template_parameters" },
          },
        );
      }
    }
    // The provider's category decides: a marketing template is a marketing message whatever the panel says.
    if (template.category === "MARKETING" && input.category !== "marketing") {
      throw new ApiError("unprocessable", `${template.name} is a marketing template: classify the campaign as marketing`, {
        details: { field: "purpose", templateCategory: template.category, reason: "marketing_template", name: template.name },
      });
    }
  }
}

/** A scheduled start must lie ahead, and not too far. */
function checkSchedule(input: CampaignInput, now: number) {
  if (input.scheduledAt === null) return;
  if (input.scheduledAt <= now)
    throw new ApiError("unprocessable", "The scheduled time has passed", { details: { field: "scheduledAt", reason: "scheduled_in_past" } });
  if (input.scheduledAt > now + MAX_SCHEDULE_AHEAD_MS) {
    throw new ApiError("unprocessable", "A campaign can be scheduled at most 30 days ahead", {
      details: { field: "scheduledAt", reason: "scheduled_too_far" },
    });
  }
}

export function sendRulesOf(input: Pick<CampaignInput, "category" | "channel">, now: number, campaignId?: number): SendRules {
  return { category: input.category, channel: input.channel, now, campaignId };
}

/**
 * The review's account of who will not be reached and why, and who will wait for their allowed
 * hours and until when, computed by the same query the expansion runs.
 */
export async function reviewSummary(db: Db, recipients: RecipientSource, excludedPhones: string[], rules: SendRules, startAt: number): Promise<ReviewSummary> {
  const groups = await recipientGroups(db, recipients, excludedPhones, rules.now, rules);
  const excluded = Object.fromEntries(EXCLUSION_REASONS.map((r) => [r, 0])) as ReviewSummary["excluded"];
  const deferral = rules.category === "marketing" ? deferralByAreaCode(startAt) : {};
  const deferred: ReviewSummary["deferred"] = { count: 0, first: null, last: null };
  let total = 0;
  let sendNow = 0;
  for (const g of groups) {
    total += g.n;
    if (g.exclusion) {
      excluded[g.exclusion] += g.n;
      continue;
    }
    const until = deferral[deferralKey(g.area)];
    if (until === undefined) {
      sendNow += g.n;
      continue;
    }
    deferred.count += g.n;
    deferred.first = deferred.first === null ? until : Math.min(deferred.first, until);
    deferred.last = deferred.last === null ? until : Math.max(deferred.last, until);
  }
  const refusal = excluded.whatsapp_marketing_us > 0 ? WHATSAPP_MARKETING_US_REFUSAL : null;
  return { total, excluded, sendNow, deferred, refusal };
}

const users_ = (n: number) => `${n} user${n === 1 ? "" : "s"}`;
const EXCLUSION_WORDS: Record<keyof ReviewSummary["excluded"], string> = {
  opted_out: "opted out",
  no_consent: "no consent basis",
  frequency_cap: "frequency cap",
  whatsapp_marketing_us: "WhatsApp marketing to +1",
};

/**
 * The answer to a send, in the specification's words ("Message sent successfully to N users."),
 * followed, when not everyone goes at once, by how many go now, how many wait for their allowed
 * hours (their morning) and how many are skipped and why. Without a summary (a replayed request),
 * just the first sentence.
 */
export function sentMessage(n: number, summary?: SendSummaryFigures): string {
  const first = `Message sent successfully to ${users_(n)}.`;
  if (!summary) return first;
  const skipped = Object.values(summary.excluded).reduce((a, b) => a + b, 0);
  if (skipped === 0 && summary.deferred.count === 0) return first;
  const parts = [`${summary.sendNow} queued now`];
  if (summary.deferred.count > 0) parts.push(`${summary.deferred.count} deferred to their allowed hours`);
  if (skipped > 0) {
    const why = EXCLUSION_REASONS.filter((r) => summary.excluded[r] > 0).map((r) => `${EXCLUSION_WORDS[r]}: ${summary.excluded[r]}`);
    parts.push(`${skipped} skipped (${why.join(", ")})`);
  }
  return `${first} ${parts.join(", ")}.`;
}

/** A campaign row with its author's name, as every campaign read needs it. */
const campaignFields = { ...getTableColumns(campaigns), authorName: users.name };
const selectCampaigns = (db: Db) => db.select(campaignFields).from(campaigns).leftJoin(users, eq(users.id, campaigns.authorId)).$dynamic();
type CampaignRow = Awaited<ReturnType<ReturnType<typeof selectCampaigns>["get"]>> & {};
const byKey = (authorId: number, key: string) => and(eq(campaigns.authorId, authorId), eq(campaigns.idempotencyKey, key));

/**
 * Counts by status come from the rows themselves (an index range per campaign), so they are never
 * out of step. In doubt: rows in 'sending' that no consumer is sending now, whose send may or may
 * not have gone out: held after a send that got no answer, or whose claim (`lease` ms, SEND_LEASE_SECONDS)
 * ran out with nothing recorded; each is settled from the provider before anything is sent again.
 */
async function withCounts(db: Db, rows: CampaignRow[], lease: number): Promise<CampaignView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const m = campaignMessages;
  const claimedBefore = Date.now() - lease;
  const counted = await db
    .select({
      campaignId: campaignMessages.campaignId,
      status: campaignMessages.status,
      n: count(),
      first: min(campaignMessages.deferredUntil),
      last: max(campaignMessages.deferredUntil),
      inDoubt:
        sql<number>`sum(CASE WHEN ${m.status} = 'sending' AND (${m.heldUntil} IS NOT NULL OR ${m.updatedAt} < ${claimedBefore}) THEN 1 ELSE 0 END)`.mapWith(
          Number,
        ),
    })
    .from(campaignMessages)
    .where(inArray(campaignMessages.campaignId, jsonList(ids)))
    .groupBy(campaignMessages.campaignId, campaignMessages.status);
  const counts = new Map<number, Counts>(ids.map((id) => [id, { pending: 0, deferred: 0, sending: 0, sent: 0, delivered: 0, failed: 0, skipped: 0 }]));
  const deferred = new Map<number, { first: number; last: number }>();
  const inDoubt = new Map<number, number>();
  for (const c of counted) {
    counts.get(c.campaignId)![c.status] = c.n;
    if (c.inDoubt > 0) inDoubt.set(c.campaignId, c.inDoubt);
    if (c.status === "deferred" && c.first !== null && c.last !== null) deferred.set(c.campaignId, { first: c.first, last: c.last });
  }
  return rows.map((r) => ({
    id: r.id,
    app: r.app,
    channel: r.channel,
    source: r.source,
    message: r.message,
    template: r.template ? { name: r.template.name, language: r.template.language } : null,
    author: { id: r.authorId, name: r.authorName ?? "" },
    status: r.status,
    category: r.category,
    purpose: r.purpose,
    language: r.language,
    scheduledAt: r.scheduledAt,
    deferred: deferred.get(r.id) ?? null,
    total: r.total,
    counts: counts.get(r.id)!,
    inDoubt: inDoubt.get(r.id) ?? 0,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }));
}

export async function getCampaign(db: Db, id: number, lease: number): Promise<CampaignView | null> {
  const row = await selectCampaigns(db).where(eq(campaigns.id, id)).get();
  return row ? (await withCounts(db, [row], lease))[0]! : null;
}

export async function campaignExists(db: Db, id: number): Promise<boolean> {
  return (await db.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.id, id)).get()) !== undefined;
}

export async function listCampaigns(db: Db, page: number, pageSize: number, lease: number): Promise<Page<CampaignView>> {
  const [counted, rows] = await db.batch([
    db.select({ n: count() }).from(campaigns),
    selectCampaigns(db).orderBy(desc(campaigns.createdAt), desc(campaigns.id)).limit(pageSize).offset(pageOffset(page, pageSize)),
  ]);
  return { total: counted[0]?.n ?? 0, page, pageSize, rows: await withCounts(db, rows, lease) };
}

/** Queue the expansion, after a delay for a scheduled campaign (the queue's longest delay at a time: the job re-queues itself for the rest). */
export async function enqueueExpand(env: Env, log: Logger, campaignId: number, startAt: number | null = null) {
  const delaySeconds = startAt === null ? 0 : Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((startAt - Date.now()) / 1000)));
  try {
    await env.DISPATCH.send({ kind: "expand", campaignId } satisfies Job, delaySeconds > 0 ? { delaySeconds } : undefined);
  } catch (err) {
    // The campaign row is committed; the cron sweep (or a replay of the request) queues it again.
    log.error("campaign.enqueue_failed", { campaignId, error: String(err) });
  }
}

/** `outcome`: the figures behind `message`, for the console to word in the admin's language (null for a retry). */
export type CreateResult = { campaign: CampaignView; created: boolean; message: string; outcome: SendOutcome | null };

type SendSummaryFigures = Pick<ReviewSummary, "excluded" | "sendNow" | "deferred">;

/** A send's answer: the specification's sentence (sentMessage) and its figures. */
function sendAnswer(n: number, summary?: SendSummaryFigures): { message: string; outcome: SendOutcome | null } {
  return {
    message: sentMessage(n, summary),
    outcome: summary ? { total: n, sendNow: summary.sendNow, deferred: summary.deferred.count, excluded: summary.excluded } : null,
  };
}

/**
 * One request, one campaign: the idempotency key (unique per author) makes a double click or a
 * replayed request answer the same campaign, and a different request under a used key a 409.
 * The campaign row, its exclusions and the audit entry are written in one transaction; then one
 * expand job is queued. N in the answer is the audience minus the deselected rows, counted by the
 * same query the expansion runs (opted-out numbers are in N and end as skipped).
 */
export async function createCampaign(
  env: Env,
  log: Logger,
  author: SessionUser,
  input: CampaignInput,
  source: CampaignView["source"] = input.recipients.source,
): Promise<CreateResult> {
  const db = dbFor(env.DB);
  const { idempotencyKey: _key, ...hashed } = input;
  const requestHash = await sha256Hex(JSON.stringify(hashed));
  const existing = await selectCampaigns(db).where(byKey(author.id, input.idempotencyKey)).get();
  // A replayed request is answered in the same words: the same request counted again as of the
  // campaign's creation, its own messages not counting toward its recipients' caps.
  const describe = async (row: CampaignRow) =>
    sendAnswer(
      row.total,
      await reviewSummary(db, input.recipients, input.excludedPhones, sendRulesOf(input, row.createdAt, row.id), row.scheduledAt ?? row.createdAt),
    );
  if (existing) return replay(env, log, existing, requestHash, describe);

  // A retry resends content that passed these rules when its parent was created.
  if (source !== "retry") await checkContent(db, author, input);
  // Referral codes are billing data: without billingDetails the search does not read them, now or at expansion.
  if (input.recipients.source === "drivers" && !author.roleProperties?.billingDetails) {
    input = { ...input, recipients: { ...input.recipients, filters: { ...input.recipients.filters, searchReferral: false } } };
  }
  const now = Date.now();
  checkSchedule(input, now);
  const rules = sendRulesOf(input, now);
  // The review's own query: who is left out and why, and who waits for their hours, for the answer's words.
  const summary = await reviewSummary(db, input.recipients, input.excludedPhones, rules, input.scheduledAt ?? now);
  const { total } = summary;
  const skipped = Object.values(summary.excluded).reduce((a, b) => a + b, 0);
  if (total === 0) throw new ApiError("unprocessable", "Nobody to send to: the audience is empty", { details: { reason: "audience_empty" } });
  if (input.category === "marketing" && input.channel === "whatsapp") {
    // Every number we hold is +1 (src/shared/phone.ts), so the combination can reach nobody: refuse it whole, saying why.
    throw new ApiError("unprocessable", WHATSAPP_MARKETING_US_REFUSAL, { details: { reason: "whatsapp_marketing_us" } });
  }
  if (skipped === total)
    throw new ApiError("unprocessable", "Nobody to send to: every recipient is left out (opted out, no consent basis or frequency cap)", {
      details: { reason: "all_left_out" },
    });

  const audience =
    input.recipients.source === "drivers" || input.recipients.source === "invitations" ? { ...input.recipients.filters } : { ...input.recipients };
  // The new campaign's id, read inside the same transaction by the statements after its insert.
  const newId = sql`(SELECT ${campaigns.id} FROM ${campaigns} WHERE ${byKey(author.id, input.idempotencyKey)})`;
  try {
    await db.batch([
      db.insert(campaigns).values({
        app: input.app,
        channel: input.channel,
        source,
        message: input.message,
        template: input.template,
        audience,
        authorId: author.id,
        idempotencyKey: input.idempotencyKey,
        status: input.scheduledAt === null ? "queued" : "scheduled",
        total,
        skipped,
        requestHash,
        category: input.category,
        purpose: input.purpose,
        language: input.language,
        scheduledAt: input.scheduledAt,
        createdAt: now,
        updatedAt: now,
      }),
      db
        .insert(campaignExclusions)
        .select(
          db
            .select({ campaignId: sql<number>`${newId}`.as("campaign_id"), phone: sql<string>`value`.as("phone") })
            .from(sql`json_each(${JSON.stringify(input.excludedPhones)})`),
        ),
      db.insert(auditLog).values({
        actorId: author.id,
        action: "campaign.create",
        target: sql`'campaign:' || ${newId}`,
        details: {
          channel: input.channel,
          source,
          app: input.app,
          total,
          skipped,
          excluded: input.excludedPhones.length,
          liftLimit: input.liftLimit,
          purpose: input.purpose,
          scheduledAt: input.scheduledAt,
        },
        at: now,
      }),
    ]);
  } catch (err) {
    // Two identical requests raced: the loser answers with the winner's campaign.
    if (`${String(err)} ${err instanceof Error && err.cause ? String(err.cause) : ""}`.includes("UNIQUE constraint failed")) {
      const winner = await selectCampaigns(db).where(byKey(author.id, input.idempotencyKey)).get();
      if (winner) return replay(env, log, winner, requestHash, describe);
    }
    throw err;
  }
  const row = (await selectCampaigns(db).where(byKey(author.id, input.idempotencyKey)).get())!;
  await enqueueExpand(env, log, row.id, row.scheduledAt);
  log.info("campaign.created", { campaignId: row.id, total, skipped, channel: input.channel, source });
  return { campaign: (await withCounts(db, [row], leaseMs(env)))[0]!, created: true, ...sendAnswer(total, summary) };
}

async function replay(
  env: Env,
  log: Logger,
  row: CampaignRow,
  requestHash: string,
  describe?: (row: CampaignRow) => Promise<ReturnType<typeof sendAnswer>>,
): Promise<CreateResult> {
  if (row.requestHash && row.requestHash !== requestHash)
    throw new ApiError("conflict", "This idempotency key was already used for a different campaign", { details: { reason: "idempotency_conflict" } });
  // A campaign whose expand job never made it onto the queue gets another chance; expansion is idempotent.
  if (row.status === "queued") await enqueueExpand(env, log, row.id);
  if (row.status === "scheduled") await enqueueExpand(env, log, row.id, row.scheduledAt);
  return {
    campaign: (await withCounts(dbFor(env.DB), [row], leaseMs(env)))[0]!,
    created: false,
    ...(describe ? await describe(row) : sendAnswer(row.total)),
  };
}

/**
 * "Retry failed only": a new campaign of the failed rows no retry has taken yet. The new campaign
 * and its claim on those rows (campaign_messages.retried_by) are written in one transaction, so
 * each failed row is retried once however many admins click, and a row that failed later (a late
 * delivery receipt) goes into the next retry, not into a second copy of the first. A click that
 * finds nothing left to claim answers the latest retry. The content is checked again as for a new
 * campaign: a message over one segment is the owner's to send, a WhatsApp template needs the
 * billingDetails permission and must still be approved.
 */
export async function retryFailed(env: Env, log: Logger, author: SessionUser, parentId: number): Promise<CreateResult> {
  const db = dbFor(env.DB);
  const parent = await db
    .select({
      id: campaigns.id,
      app: campaigns.app,
      channel: campaigns.channel,
      message: campaigns.message,
      template: campaigns.template,
      category: campaigns.category,
      purpose: campaigns.purpose,
      language: campaigns.language,
    })
    .from(campaigns)
    .where(eq(campaigns.id, parentId))
    .get();
  if (!parent) throw new ApiError("not_found", "No such campaign");
  const unclaimed = and(eq(campaignMessages.campaignId, parentId), eq(campaignMessages.status, "failed"), isNull(campaignMessages.retriedBy));
  const open = await db.select({ n: count() }).from(campaignMessages).where(unclaimed).get();
  if (!open || open.n === 0) return latestRetry(env, log, parentId);

  const template = parent.template ? { name: parent.template.name, language: parent.template.language } : null;
  const liftLimit = parent.channel === "sms" && !!parent.message && !fitsOneSegment(parent.message);
  await checkContent(db, author, {
    idempotencyKey: "",
    app: parent.app,
    channel: parent.channel,
    message: parent.message,
    template,
    recipients: { source: "retry", campaignId: parentId },
    excludedPhones: [],
    liftLimit,
    purpose: parent.purpose,
    category: parent.category,
    language: parent.language,
    scheduledAt: null,
  });

  const now = Date.now();
  const idempotencyKey = `retry-failed:${parentId}:${crypto.randomUUID()}`;
  const retryId = sql<number>`(SELECT ${campaigns.id} FROM ${campaigns} WHERE ${campaigns.authorId} = ${author.id} AND ${campaigns.idempotencyKey} = ${idempotencyKey})`;
  const [, claimed] = await db.batch([
    db.insert(campaigns).values({
      app: parent.app,
      channel: parent.channel,
      source: "retry",
      message: parent.message,
      template: parent.template,
      audience: { source: "retry", campaignId: parentId },
      authorId: author.id,
      idempotencyKey,
      status: "queued",
      total: 0,
      category: parent.category,
      purpose: parent.purpose,
      language: parent.language,
      createdAt: now,
      updatedAt: now,
    }),
    db.update(campaignMessages).set({ retriedBy: retryId }).where(unclaimed).returning({ id: campaignMessages.id }),
    db
      .update(campaigns)
      .set({ total: sql`(SELECT count(*) FROM ${campaignMessages} WHERE ${campaignMessages.retriedBy} = ${campaigns.id})` })
      .where(and(eq(campaigns.authorId, author.id), eq(campaigns.idempotencyKey, idempotencyKey))),
    // The audit row in the same transaction, only when the retry claimed rows (else it is deleted below).
    auditInsertWhen(
      db,
      {
        actorId: author.id,
        action: "campaign.create",
        target: sql`'campaign:' || ${retryId}`,
        details: sql`json_object('channel', ${parent.channel}, 'source', 'retry', 'parent', ${parentId}, 'app', ${parent.app}, 'total', (SELECT count(*) FROM ${campaignMessages} WHERE ${campaignMessages.retriedBy} = ${retryId}), 'liftLimit', json(${liftLimit ? "true" : "false"}))`,
      },
      sql`EXISTS (SELECT 1 FROM ${campaignMessages} WHERE ${campaignMessages.retriedBy} = ${retryId})`,
      now,
    ),
  ]);
  const created = (await db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.authorId, author.id), eq(campaigns.idempotencyKey, idempotencyKey)))
    .get())!;
  if (claimed.length === 0) {
    // Another admin's retry took the rows between our count and our claim.
    await db.delete(campaigns).where(eq(campaigns.id, created.id));
    return latestRetry(env, log, parentId);
  }
  await enqueueExpand(env, log, created.id);
  log.info("campaign.created", { campaignId: created.id, total: claimed.length, channel: parent.channel, source: "retry", parent: parentId });
  const campaign = (await getCampaign(db, created.id, leaseMs(env)))!;
  return { campaign, created: true, ...sendAnswer(claimed.length) };
}

/** The newest retry of a campaign (a click that found nothing left to claim answers it), or 422 when there is none. */
async function latestRetry(env: Env, log: Logger, parentId: number): Promise<CreateResult> {
  const row = await selectCampaigns(dbFor(env.DB))
    .where(and(eq(campaigns.source, "retry"), sql`json_extract(${campaigns.audience}, '$.campaignId') = ${parentId}`))
    .orderBy(desc(campaigns.id))
    .limit(1)
    .get();
  if (!row) throw new ApiError("unprocessable", "This campaign has no failed messages to retry", { details: { reason: "nothing_to_retry" } });
  return replay(env, log, row, row.requestHash ?? "");
}

const ledgerFields = {
  id: campaignMessages.id,
  phone: campaignMessages.phone,
  name: campaignMessages.name,
  status: campaignMessages.status,
  deferredUntil: campaignMessages.deferredUntil,
  providerId: campaignMessages.providerId,
  errorCode: campaignMessages.errorCode,
  errorMessage: campaignMessages.errorMessage,
  attempts: campaignMessages.attempts,
  deadLettered: campaignMessages.deadLettered,
  updatedAt: campaignMessages.updatedAt,
};

/** The ledger's row without the keyset id (the select above is checked against the shared shape here). */
const toLedgerRow = ({ id: _id, ...row }: LedgerRow & { id: number }): LedgerRow => row;

export async function ledgerPage(db: Db, campaignId: number, status: MessageStatus | undefined, page: number, pageSize: number): Promise<Page<LedgerRow>> {
  const where = and(eq(campaignMessages.campaignId, campaignId), status ? eq(campaignMessages.status, status) : undefined);
  const [counted, rows] = await db.batch([
    db.select({ n: count() }).from(campaignMessages).where(where),
    db.select(ledgerFields).from(campaignMessages).where(where).orderBy(asc(campaignMessages.id)).limit(pageSize).offset(pageOffset(page, pageSize)),
  ]);
  return { total: counted[0]?.n ?? 0, page, pageSize, rows: rows.map(toLedgerRow) };
}

const CSV_PAGE = 1000;

/** The whole ledger as CSV (every cell defused: ./csv.ts), read in keyset pages so a 100,000-row campaign never sits in memory at once. */
export function ledgerCsv(db: Db, campaignId: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after = 0;
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode("phone,name,status,provider_id,error_code,error_message,attempts,dead_lettered,updated_at\r\n"));
        return;
      }
      const rows = await db
        .select(ledgerFields)
        .from(campaignMessages)
        .where(and(eq(campaignMessages.campaignId, campaignId), gt(campaignMessages.id, after)))
        .orderBy(asc(campaignMessages.id))
        .limit(CSV_PAGE);
      if (rows.length === 0) {
        controller.close();
        return;
      }
      after = rows[rows.length - 1]!.id;
      const lines = rows.map((r) =>
        csvRow([r.phone, r.name, r.status, r.providerId, r.errorCode, r.errorMessage, r.attempts, r.deadLettered, new Date(r.updatedAt).toISOString()]),
      );
      controller.enqueue(encoder.encode(`${lines.join("\r\n")}\r\n`));
    },
  });
}

/**
 * Cancel a campaign that has not started: a scheduled one, or one still queued. Once expansion has
 * begun it runs to the end (its messages may already be on their way).
 */
export async function cancelCampaign(db: Db, actor: SessionUser, id: number, lease: number): Promise<CampaignView> {
  const now = Date.now();
  // The cancellation and its audit row are one transaction.
  const [[cancelled]] = await db.batch([
    db
      .update(campaigns)
      .set({ status: "cancelled", updatedAt: now })
      .where(and(eq(campaigns.id, id), inArray(campaigns.status, ["scheduled", "queued"])))
      .returning({ id: campaigns.id }),
    auditInsertWhen(db, { actorId: actor.id, action: "campaign.cancel", target: `campaign:${id}` }, changedAbove, now),
  ]);
  const campaign = await getCampaign(db, id, lease);
  if (!campaign) throw new ApiError("not_found", "No such campaign");
  if (!cancelled)
    throw new ApiError("conflict", `The campaign has already started (${campaign.status}); it can no longer be cancelled`, {
      details: { reason: "already_started", status: campaign.status },
    });
  return campaign;
}
