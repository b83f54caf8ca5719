import { and, asc, count, eq, gt } from "drizzle-orm";
import type { LedgerRow, MessageStatus } from "../../shared/campaigns";
import type { Page } from "../../shared/paging";
import { pageOffset } from "../../shared/paging";
import type { Db } from "../db/client";
import { campaignMessages } from "../db/schema";
import { csvRow } from "./csv";

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
