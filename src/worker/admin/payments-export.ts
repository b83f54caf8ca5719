import { and, asc, eq, gt, gte, like, lte, or } from "drizzle-orm";
import type { SessionUser } from "../context";
import { recordAudit } from "../cross-cutting/audit";
import { type CsvValue, csvStream } from "../cross-cutting/csv";
import type { Db } from "../db/client";
import { payments, users } from "../db/schema";

/** The billing page's filters (as /api/admin/billing/payments takes them), without paging. */
export type PaymentExportFilter = { status?: (typeof payments.$inferSelect)["status"]; app?: "flex" | "spark"; from?: number; to?: number; q?: string };

const PAYMENT_CSV_HEADER = [
  "id",
  "created",
  "settled",
  "user_id",
  "name",
  "phone",
  "app",
  "status",
  "amount",
  "refunded",
  "net",
  "days",
  "provider",
  "failure",
] as const;

const dollars = (cents: number) => (cents / 100).toFixed(2);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The filtered payments for the CSV, 1,000 a call in id order (keyset); null when done. */
function paymentCsvChunks(db: Db, f: PaymentExportFilter): () => Promise<CsvValue[][] | null> {
  let after = 0;
  const digits = f.q?.replace(/\D/g, "") ?? "";
  const where = and(
    f.status ? eq(payments.status, f.status) : undefined,
    f.app ? eq(users.app, f.app) : undefined,
    f.from !== undefined ? gte(payments.createdAt, f.from) : undefined,
    f.to !== undefined ? lte(payments.createdAt, f.to) : undefined,
    f.q ? or(like(users.name, `%${f.q}%`), digits.length >= 3 ? like(users.phone, `%${digits}%`) : undefined) : undefined,
  );
  return async () => {
    const rows = await db
      .select({
        id: payments.id,
        createdAt: payments.createdAt,
        settledAt: payments.settledAt,
        userId: payments.userId,
        name: users.name,
        phone: users.phone,
        app: users.app,
        status: payments.status,
        amountCents: payments.amountCents,
        refundedCents: payments.refundedCents,
        days: payments.days,
        provider: payments.provider,
        failureCode: payments.failureCode,
      })
      .from(payments)
      .innerJoin(users, eq(users.id, payments.userId))
      .where(and(where, gt(payments.id, after)))
      .orderBy(asc(payments.id))
      .limit(1000);
    if (rows.length === 0) return null;
    after = rows[rows.length - 1]!.id;
    return rows.map((r) => [
      r.id,
      iso(r.createdAt),
      iso(r.settledAt),
      r.userId,
      r.name,
      r.phone,
      r.app,
      r.status,
      dollars(r.amountCents),
      dollars(r.refundedCents),
      dollars(r.status === "successful" || r.status === "refunded" ? r.amountCents - r.refundedCents : 0),
      r.days,
      r.provider,
      r.failureCode,
    ]);
  };
}

/** The filtered payments as CSV, streamed; exporting people's details is itself audited. */
export async function exportPayments(db: Db, admin: Pick<SessionUser, "id">, filter: PaymentExportFilter): Promise<ReadableStream<Uint8Array>> {
  await recordAudit(db, { actorId: admin.id, action: "admin.payments_exported", details: { filters: filter } });
  return csvStream(PAYMENT_CSV_HEADER, paymentCsvChunks(db, filter));
}
