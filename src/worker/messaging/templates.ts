import { and, asc, count, eq, gt, max, notInArray, or } from "drizzle-orm";
import type { Page } from "../../shared/paging";
import { pageOffset } from "../../shared/paging";
import { type TemplateRef, templateCategory, type WhatsAppTemplate } from "../../shared/templates";
import { type Db, dbFor, excluded, jsonList } from "../db/client";
import { whatsappTemplates } from "../db/schema";
import type { Logger } from "../log";
import { createWhatsAppProvider } from "../providers/whatsapp/provider";

/** How stale our copy of Meta's template list may get before a read refreshes it. */
export const TEMPLATE_SYNC_MAX_AGE_MS = 10 * 60_000;

/** Rows per INSERT of the mirror: 7 columns each stays under D1's 100 bound parameters. */
const UPSERT_CHUNK = 14;

const templateColumns = {
  id: whatsappTemplates.id,
  name: whatsappTemplates.name,
  language: whatsappTemplates.language,
  status: whatsappTemplates.status,
  category: whatsappTemplates.category,
  components: whatsappTemplates.components,
};
/** A stored row as the shared template shape (an unknown category reads as marketing). */
const toTemplate = <Row extends { category: string }>(row: Row) => ({ ...row, category: templateCategory(row.category) });
const approved = eq(whatsappTemplates.status, "APPROVED");

/** An approved template by name and language (Meta refuses to send any other). */
export async function findTemplate(db: Db, ref: Pick<TemplateRef, "name" | "language">): Promise<WhatsAppTemplate | null> {
  const row = await db
    .select(templateColumns)
    .from(whatsappTemplates)
    .where(and(eq(whatsappTemplates.name, ref.name), eq(whatsappTemplates.language, ref.language), approved))
    .get();
  return row ? toTemplate(row) : null;
}

/**
 * Mirrors the provider's template list into whatsapp_templates in one transaction: upserts (in
 * chunks that respect D1's parameter limit) and a delete of what the provider no longer has. The
 * outbox provider has no list of its own: there the table (seeded) is the source and nothing happens.
 */
export async function syncTemplates(env: Env, log: Logger, { force = false, now = Date.now() } = {}): Promise<boolean> {
  const db = dbFor(env.DB);
  const provider = createWhatsAppProvider(env);
  if (!force) {
    const last = await db
      .select({ at: max(whatsappTemplates.syncedAt) })
      .from(whatsappTemplates)
      .get();
    if (last?.at && now - last.at < TEMPLATE_SYNC_MAX_AGE_MS) return false;
  }
  let templates: WhatsAppTemplate[] | null;
  try {
    templates = await provider.fetchTemplates();
  } catch (err) {
    // Serving the last good copy beats failing the admin's page.
    log.warn("templates.sync_failed", { error: String(err) });
    return false;
  }
  if (templates === null) return false;
  const upserts = [];
  for (let i = 0; i < templates.length; i += UPSERT_CHUNK) {
    const rows = templates.slice(i, i + UPSERT_CHUNK).map((t) => ({ ...t, syncedAt: now }));
    upserts.push(
      db
        .insert(whatsappTemplates)
        .values(rows)
        .onConflictDoUpdate({
          target: whatsappTemplates.id,
          set: {
            name: excluded(whatsappTemplates.name),
            language: excluded(whatsappTemplates.language),
            status: excluded(whatsappTemplates.status),
            category: excluded(whatsappTemplates.category),
            components: excluded(whatsappTemplates.components),
            syncedAt: now,
          },
        }),
    );
  }
  const kept = templates.map((t) => t.id);
  // The ids kept travel as one JSON parameter however many there are.
  const removeGone = db.delete(whatsappTemplates).where(kept.length > 0 ? notInArray(whatsappTemplates.id, jsonList(kept)) : undefined);
  await db.batch([removeGone, ...upserts]);
  log.info("templates.synced", { count: templates.length });
  return true;
}

/** Approved templates, a page at a time, refreshed from the provider when our copy is stale. */
/** Up to `limit` approved templates after `after` in (name, language) order, and whether more follow: the old call's continuation. */
export async function templatesAfter(env: Env, log: Logger, after: TemplateRef | null, limit: number) {
  await syncTemplates(env, log);
  const t = whatsappTemplates;
  const rows = await dbFor(env.DB)
    .select(templateColumns)
    .from(t)
    .where(and(approved, after === null ? undefined : or(gt(t.name, after.name), and(eq(t.name, after.name), gt(t.language, after.language)))))
    .orderBy(asc(t.name), asc(t.language))
    .limit(limit + 1);
  return { rows: rows.slice(0, limit).map(toTemplate), more: rows.length > limit };
}

export async function templatePage(env: Env, log: Logger, page: number, pageSize: number): Promise<Page<WhatsAppTemplate>> {
  await syncTemplates(env, log);
  const db = dbFor(env.DB);
  const [counted, rows] = await db.batch([
    db.select({ n: count() }).from(whatsappTemplates).where(approved),
    db
      .select(templateColumns)
      .from(whatsappTemplates)
      .where(approved)
      .orderBy(asc(whatsappTemplates.name), asc(whatsappTemplates.language))
      .limit(pageSize)
      .offset(pageOffset(page, pageSize)),
  ]);
  return { total: counted[0]?.n ?? 0, page, pageSize, rows: rows.map(toTemplate) };
}
