import { and, asc, count, eq, gt } from "drizzle-orm";
import type { LedgerRow, MessageStatus } from "../../shared/campaigns";
import type { Page } from "../../shared/paging";
import { pageOffset } from "../../shared/paging";
import type { SessionUser } from "../context";
import { recordAudit } from "../cross-cutting/audit";
import { csvStream } from "../cross-cutting/csv";
import type { Db } from "../db/client";
import { campaignMessages } from "../db/schema";
import { ApiError } from "../errors";
import { campaignExists } from "./campaign-reads";

/** A campaign's ledger, one row per recipient: a page of it, and the whole of it as CSV. */

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
  if (!(await campaignExists(db, campaignId))) throw new ApiError("not_found", "No such campaign");
  const where = and(eq(campaignMessages.campaignId, campaignId), status ? eq(campaignMessages.status, status) : undefined);
  const [counted, rows] = await db.batch([
    db.select({ n: count() }).from(campaignMessages).where(where),
    db.select(ledgerFields).from(campaignMessages).where(where).orderBy(asc(campaignMessages.id)).limit(pageSize).offset(pageOffset(page, pageSize)),
  ]);
  return { total: counted[0]?.n ?? 0, page, pageSize, rows: rows.map(toLedgerRow) };
}

const CSV_PAGE = 1000;

const LEDGER_CSV_HEADER = ["phone", "name", "status", "provider_id", "error_code", "error_message", "attempts", "dead_lettered", "updated_at"];

/** The whole ledger as CSV (every cell defused: cross-cutting/csv.ts), read in keyset pages so a 100,000-row campaign never sits in memory at once. */
function ledgerCsv(db: Db, campaignId: number): ReadableStream<Uint8Array> {
  let after = 0;
  return csvStream(
    LEDGER_CSV_HEADER,
    async () => {
      const rows = await db
        .select(ledgerFields)
        .from(campaignMessages)
        .where(and(eq(campaignMessages.campaignId, campaignId), gt(campaignMessages.id, after)))
        .orderBy(asc(campaignMessages.id))
        .limit(CSV_PAGE);
      if (rows.length === 0) return null;
      after = rows[rows.length - 1]!.id;
      // dead_lettered says true or false, as this export always has.
      return rows.map((r) => [
        r.phone,
        r.name,
        r.status,
        r.providerId,
        r.errorCode,
        r.errorMessage,
        r.attempts,
        String(r.deadLettered),
        new Date(r.updatedAt).toISOString(),
      ]);
    },
    { byteOrderMark: false },
  );
}

/** The ledger's CSV for an administrator: 404 for no such campaign; exporting people's details is itself audited. */
export async function exportLedger(db: Db, admin: Pick<SessionUser, "id">, campaignId: number): Promise<ReadableStream<Uint8Array>> {
  if (!(await campaignExists(db, campaignId))) throw new ApiError("not_found", "No such campaign");
  await recordAudit(db, { actorId: admin.id, action: "admin.campaign_exported", target: `campaign:${campaignId}` });
  return ledgerCsv(db, campaignId);
}
