import { and, count, desc, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { InvitationListQuery, InvitationListRow } from "../../shared/admin-lists";
import { dayEnd, dayStart } from "../../shared/audience";
import { type Page, pageOffset } from "../../shared/paging";
import { parseReviewSearch } from "../../shared/search";
import { namedFields } from "../db/batch-fields";
import { type Db, phoneEndsWith } from "../db/client";
import { invitations, payments, users } from "../db/schema";
import { foldSearchText, keyWithoutReferral } from "../messaging/audience-search";

/**
 * The invitations page (docs/admin.md): every invitation with its inviter, the invitee's account
 * when the number registered in the same app, whether they paid, and the inviter's free week.
 */
const inviter = alias(users, "inviter");
const invitee = alias(users, "invitee");
const candidate = alias(users, "candidate");
const payment = alias(payments, "payment");

// The invitee's account: the oldest registered with the number in the invitation's app.
const inviteeId = sql`(SELECT ${candidate.id} FROM ${users} ${sql.identifier("candidate")} WHERE ${candidate.phone} = ${invitations.phone} AND ${candidate.app} = ${invitations.app} ORDER BY ${candidate.id} LIMIT 1)`;
const paid = sql<number>`(${invitee.id} IS NOT NULL AND EXISTS (SELECT 1 FROM ${payments} ${sql.identifier("payment")} WHERE ${payment.userId} = ${invitee.id} AND ${payment.status} = 'successful'))`;

const tri = (condition: SQL, value: "all" | "yes" | "no"): SQL[] => (value === "all" ? [] : [value === "yes" ? condition : sql`NOT (${condition})`]);

function where(q: InvitationListQuery, billing: boolean): SQL | undefined {
  const conditions: SQL[] = [];
  if (q.app !== "all") conditions.push(eq(invitations.app, q.app));
  if (q.inviter !== undefined) conditions.push(eq(invitations.inviterId, q.inviter));
  if (q.from) conditions.push(gte(invitations.invitedAt, dayStart(q.from, q.timeZone)));
  if (q.to) conditions.push(lte(invitations.invitedAt, dayEnd(q.to, q.timeZone)));
  conditions.push(...tri(sql`${invitee.id} IS NOT NULL`, q.registered));
  conditions.push(...tri(paid, q.paid));
  conditions.push(...tri(sql`${invitations.freeWeek} = 1`, q.freeWeek));
  const search = parseReviewSearch(q.search);
  if (search.kind === "phone") conditions.push(eq(invitations.phone, search.phone));
  if (search.kind === "text") {
    // The inviter's or the invitee's name, region or referral code (their search keys); the
    // referral code only for administrators with billingDetails (src/worker/admin/billing-fields.ts).
    const term = foldSearchText((q.search ?? "").trim().replace(/\p{Cc}/gu, ""));
    const keyOf = (key: SQL) => (billing ? key : keyWithoutReferral(key));
    const text = sql`(instr(${keyOf(sql`${inviter.searchKey}`)}, ${term}) > 0 OR instr(coalesce(${keyOf(sql`${invitee.searchKey}`)}, ''), ${term}) > 0)`;
    conditions.push(search.phoneEnd ? sql`(${phoneEndsWith(invitations.phone, search.phoneEnd)} OR ${text})` : text);
  }
  return conditions.length > 0 ? and(...conditions) : undefined;
}

/** `billing`: the caller's role has billingDetails, so the search reads referral codes too. */
export async function invitationListPage(db: Db, q: InvitationListQuery, billing: boolean): Promise<Page<InvitationListRow>> {
  const filter = where(q, billing);
  const [total, rows] = await db.batch([
    db
      .select({ n: count() })
      .from(invitations)
      .innerJoin(inviter, eq(inviter.id, invitations.inviterId))
      .leftJoin(invitee, eq(invitee.id, inviteeId))
      .where(filter),
    db
      .select(
        namedFields({
          id: invitations.id,
          app: invitations.app,
          invitedAt: invitations.invitedAt,
          inviterId: invitations.inviterId,
          inviterName: inviter.name,
          phone: invitations.phone,
          inviteeId: sql<number | null>`${invitee.id}`,
          inviteeName: sql<string | null>`${invitee.name}`,
          paid,
          freeWeek: invitations.freeWeek,
        }),
      )
      .from(invitations)
      .innerJoin(inviter, eq(inviter.id, invitations.inviterId))
      .leftJoin(invitee, eq(invitee.id, inviteeId))
      .where(filter)
      .orderBy(desc(invitations.invitedAt), desc(invitations.id))
      .limit(q.pageSize)
      .offset(pageOffset(q.page, q.pageSize)),
  ]);
  return { total: total[0]?.n ?? 0, page: q.page, pageSize: q.pageSize, rows: rows.map((r) => ({ ...r, paid: r.paid === 1 })) };
}
