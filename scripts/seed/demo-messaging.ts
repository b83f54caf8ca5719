/** The demo data messaging reads: WhatsApp templates, leads, and the drop-off leads of drivers who stopped short of paying. */
import { and, eq, exists, lt, lte, not, sql } from "drizzle-orm";
import { leads, payments, users, whatsappTemplates } from "../../src/worker/db/schema.ts";
import { BENCH_FIRST_ID, DAY, FIRST, LAST } from "./people.ts";
import { db, insertRows, insertSelect } from "./sql-text.ts";

const LEAD_MESSAGES = [
  "Hi, does it work for Spark in Kissimmee?",
  "¿Cuánto cuesta la semana? Quiero probar.",
  "I paid but my blocks are not showing up.",
  "Can I pay for two weeks at once?",
  "Necesito ayuda para conectar mi cuenta de Flex.",
];

const TEMPLATES: (typeof whatsappTemplates.$inferInsert)[] = [
  {
    id: "demo_welcome_en",
    name: "welcome_back",
    language: "en_US",
    category: "MARKETING",
    components: [
      { type: "HEADER", format: "TEXT", text: "Welcome back to Blockpilot" },
      { type: "BODY", text: "Your blocks are waiting. Renew your week today and we'll start searching again." },
    ],
  },
  {
    id: "demo_welcome_es",
    name: "welcome_back",
    language: "es_MX",
    category: "MARKETING",
    components: [
      { type: "HEADER", format: "TEXT", text: "Bienvenido de nuevo a Blockpilot" },
      { type: "BODY", text: "Tus bloques te esperan. Renueva tu semana hoy y volveremos a buscar." },
    ],
  },
  {
    id: "demo_expiring_en",
    name: "service_expiring",
    language: "en_US",
    category: "UTILITY",
    components: [
      { type: "HEADER", format: "TEXT", text: "Your week ends soon" },
      { type: "BODY", text: "Your Blockpilot service expires soon. Pay now to keep catching blocks." },
    ],
  },
  {
    id: "demo_invite_es",
    name: "friend_invite",
    language: "es_MX",
    category: "MARKETING",
    components: [
      { type: "HEADER", format: "TEXT", text: "Un amigo te invitó" },
      { type: "BODY", text: "Regístrate en Blockpilot y consigue mejores bloques de Flex." },
    ],
  },
];

/** Forty leads from the contact form, ads and referrals, in every status. */
function leadRows(now: number): (typeof leads.$inferInsert)[] {
  return Array.from({ length: 40 }, (_, i) => ({
    id: i + 1,
    app: i % 4 === 0 ? "spark" : "flex",
    phone: `+1954555${String(2000 + i)}`,
    name: `${FIRST[i % FIRST.length]} ${LAST[(i * 7) % LAST.length]}`,
    email: i % 2 === 0 ? `lead${i}@example.com` : null,
    source: ["contact", "facebook", "referral", "website"][i % 4]!,
    message: i % 4 === 0 ? LEAD_MESSAGES[(i / 4) % LEAD_MESSAGES.length]! : null,
    status: (["new", "new", "contacted", "converted", "lost"] as const)[i % 5]!,
    createdAt: now - i * DAY,
  }));
}

/**
 * Demo drivers who stopped short of paying in their first day are leads (src/worker/admin/leads.ts
 * files them as they happen): not confirmed, not connected or never paid.
 */
function dropOffLeads(now: number): string {
  const paid = db
    .select({ one: sql`1` })
    .from(payments)
    .where(and(eq(payments.userId, users.id), eq(payments.status, "successful")));
  return insertSelect(
    leads,
    {
      app: users.app,
      phone: users.phone,
      name: users.name,
      email: users.email,
      source: "drop-off",
      userId: users.id,
      createdAt: sql`${users.createdAt} + ${DAY}`,
    },
    sql`from ${users} where ${and(
      eq(users.isAdmin, false),
      lt(users.id, BENCH_FIRST_ID),
      lte(users.createdAt, now - DAY),
      not(and(eq(users.phoneVerified, true), eq(users.accountConnected, true), exists(paid))!),
    )}`,
  );
}

export function messagingStatements(now: number): string[] {
  return [...insertRows(whatsappTemplates, TEMPLATES), ...insertRows(leads, leadRows(now)), dropOffLeads(now)];
}
