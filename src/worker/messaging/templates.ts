import type { Page } from "../../shared/paging";
import { pageOffset } from "../../shared/paging";
import { type TemplateComponent, type TemplateRef, templateCategory, type WhatsAppTemplate } from "../../shared/templates";
import type { Logger } from "../log";
import { createWhatsAppProvider } from "../providers/whatsapp/provider";

/** How stale our copy of Meta's template list may get before a read refreshes it. */
export const TEMPLATE_SYNC_MAX_AGE_MS = 10 * 60_000;

type TemplateRecord = { id: string; name: string; language: string; status: string; category: string; components: string };
const toTemplate = (r: TemplateRecord): WhatsAppTemplate => ({
  ...r,
  category: templateCategory(r.category),
  components: JSON.parse(r.components) as TemplateComponent[],
});

/** An approved template by name and language (Meta refuses to send any other). */
export async function findTemplate(db: D1Database, ref: TemplateRef): Promise<WhatsAppTemplate | null> {
  const row = await db
    .prepare("SELECT id, name, language, status, category, components FROM whatsapp_templates WHERE name = ? AND language = ? AND status = 'APPROVED'")
    .bind(ref.name, ref.language)
    .first<TemplateRecord>();
  return row ? toTemplate(row) : null;
}

/**
 * Mirrors the provider's template list into whatsapp_templates in two set-based statements (upsert
 * from one JSON parameter, delete what the provider no longer has). The outbox provider has no
 * list of its own: there the table (seeded) is the source and nothing happens.
 */
export async function syncTemplates(env: Env, log: Logger, { force = false, now = Date.now() } = {}): Promise<boolean> {
  const provider = createWhatsAppProvider(env);
  if (!force) {
    const last = await env.DB.prepare("SELECT max(synced_at) AS at FROM whatsapp_templates").first<{ at: number | null }>();
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
  const json = JSON.stringify(templates.map((t) => ({ ...t, components: JSON.stringify(t.components) })));
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO whatsapp_templates (id, name, language, status, category, components, synced_at)
       SELECT json_extract(value, '$.id'), json_extract(value, '$.name'), json_extract(value, '$.language'), json_extract(value, '$.status'),
              json_extract(value, '$.category'), json_extract(value, '$.components'), ?
       FROM json_each(?) WHERE true
       ON CONFLICT(id) DO UPDATE SET name = excluded.name, language = excluded.language, status = excluded.status, category = excluded.category,
              components = excluded.components, synced_at = excluded.synced_at`,
    ).bind(now, json),
    env.DB.prepare("DELETE FROM whatsapp_templates WHERE id NOT IN (SELECT json_extract(value, '$.id') FROM json_each(?))").bind(json),
  ]);
  log.info("templates.synced", { count: templates.length });
  return true;
}

/** Approved templates, a page at a time, refreshed from the provider when our copy is stale. */
export async function templatePage(env: Env, log: Logger, page: number, pageSize: number): Promise<Page<WhatsAppTemplate>> {
  await syncTemplates(env, log);
  const [count, rows] = await env.DB.batch([
    env.DB.prepare("SELECT count(*) AS n FROM whatsapp_templates WHERE status = 'APPROVED'"),
    env.DB.prepare(
      "SELECT id, name, language, status, category, components FROM whatsapp_templates WHERE status = 'APPROVED' ORDER BY name, language LIMIT ? OFFSET ?",
    ).bind(pageSize, pageOffset(page, pageSize)),
  ]);
  return { total: (count!.results[0] as { n: number }).n, page, pageSize, rows: (rows!.results as TemplateRecord[]).map(toTemplate) };
}
