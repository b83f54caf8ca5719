import { and, asc, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import type { App } from "../../shared/auth";
import type { planCreateSchema, planUpdateSchema } from "../../shared/billing";
import { auditInsertWhen, changedAbove } from "../cross-cutting/audit";
import type { Db } from "../db/client";
import { plans } from "../db/schema";
import { ApiError } from "../errors";
import type { PlanRow } from "./checkout";

/** Active plans of an app, in the owner's order: what the landing page and /payment offer. */
export async function activePlans(db: Db, app: App) {
  return await db
    .select({ id: plans.id, app: plans.app, name: plans.name, days: plans.days, priceCents: plans.priceCents })
    .from(plans)
    .where(and(eq(plans.app, app), eq(plans.active, true)))
    .orderBy(asc(plans.sortOrder), asc(plans.days), asc(plans.id))
    // A handful in practice; the bound keeps the answer small whatever the owner does.
    .limit(50);
}

/** A plan that may be bought for an account of `app` now (active, of that app), or 404. */
export async function activePlanFor(db: Db, planId: number, app: App): Promise<PlanRow> {
  const plan = await db
    .select()
    .from(plans)
    .where(and(eq(plans.id, planId), eq(plans.app, app), eq(plans.active, true)))
    .get();
  if (!plan) throw new ApiError("not_found", "No such plan", { details: { field: "planId" } });
  return plan;
}

/** Every plan (of one app, or of both), active or not: the billing page's list. */
export async function planList(db: Db, app: App | undefined): Promise<PlanRow[]> {
  return db
    .select()
    .from(plans)
    .where(app ? eq(plans.app, app) : undefined)
    .orderBy(asc(plans.app), asc(plans.sortOrder), asc(plans.days), asc(plans.id))
    .limit(200);
}

/** A new plan and its audit row, in one transaction. */
export async function createPlan(db: Db, actorId: number, input: z.infer<typeof planCreateSchema>): Promise<PlanRow> {
  const now = Date.now();
  const [[plan]] = await db.batch([
    db
      .insert(plans)
      .values({ ...input, updatedAt: now })
      .returning(),
    auditInsertWhen(db, { actorId, action: "billing.plan_created", target: sql`'plan:' || last_insert_rowid()`, details: input }, changedAbove, now),
  ]);
  return plan!;
}

/**
 * A plan changed and its audit row, in one transaction (no row, no audit: 404). Payments keep
 * their own amount and days, so editing a plan never changes what was sold.
 */
export async function updatePlan(db: Db, actorId: number, id: number, change: z.infer<typeof planUpdateSchema>): Promise<PlanRow> {
  const now = Date.now();
  const [[plan]] = await db.batch([
    db
      .update(plans)
      .set({ ...change, updatedAt: now })
      .where(eq(plans.id, id))
      .returning(),
    auditInsertWhen(db, { actorId, action: "billing.plan_updated", target: `plan:${id}`, details: change }, changedAbove, now),
  ]);
  if (!plan) throw new ApiError("not_found", "No such plan");
  return plan;
}
