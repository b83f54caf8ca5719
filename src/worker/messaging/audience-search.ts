import { type SQL, sql } from "drizzle-orm";
import { parseReviewSearch } from "../../shared/search";
import { phoneEndsWith } from "../db/client";
import { users } from "../db/schema";

/**
 * The fold users.search_key is stored in (migrations/0013_search_fold.sql): case and the
 * accents of the product's languages are dropped, so `garcia` finds `García` and `nandu` finds
 * `Ñandú`. SQLite's lower() folds ASCII only and it has no accent folding, so the triggers spell
 * out this table; any other character is kept as it is. The term is folded the same way, so both
 * sides agree (a test compares them).
 */
export const SEARCH_FOLDS: Readonly<Record<string, string>> = {
  a: "ÁÀÂÃÄáàâãä",
  e: "ÉÈÊËéèêë",
  i: "ÍÌÎÏíìîï",
  o: "ÓÒÔÕÖóòôõö",
  u: "ÚÙÛÜúùûü",
  n: "Ññ",
  c: "Çç",
};
const FOLDED = new Map(Object.entries(SEARCH_FOLDS).flatMap(([base, accented]) => [...accented].map((ch) => [ch, base] as const)));
export function foldSearchText(text: string): string {
  let out = "";
  for (const ch of text) out += FOLDED.get(ch) ?? (ch >= "A" && ch <= "Z" ? ch.toLowerCase() : ch);
  return out;
}

/**
 * The review search (docs/product.md): a phone number (normalised by the shared rule), the end of
 * one, or a match ignoring case and accents on name, region or referral, read from search_key (one indexed column
 * instead of three folded on every row). Control characters are dropped so a term cannot reach
 * across fields.
 */
export function searchCondition(search: string | undefined, columns: { phone: SQL; searchKey: SQL }): SQL[] {
  const parsed = parseReviewSearch(search);
  if (parsed.kind === "none") return [];
  if (parsed.kind === "phone") return [sql`${columns.phone} = ${parsed.phone}`];
  const term = foldSearchText((search ?? "").trim().replace(/\p{Cc}/gu, ""));
  if (!term) return [];
  const text = sql`instr(${columns.searchKey}, ${term}) > 0`;
  // 4 to 9 digits: the end of a number (phones are stored E.164), or a name or code holding them.
  return parsed.phoneEnd ? [sql`(${phoneEndsWith(columns.phone, parsed.phoneEnd)} OR ${text})`] : [text];
}

/**
 * A users.search_key without its last field: the key is name, region and referral code separated
 * by char(31), so a search by someone without billingDetails reads the text before the second
 * separator and a referral code finds nobody (src/worker/admin/billing-fields.ts). `key` is the
 * column of the users table or of an alias of it (an inviter, an invitee, an account).
 */
export function keyWithoutReferral(key: SQL): SQL {
  const first = sql`instr(${key}, char(31))`;
  return sql`substr(${key}, 1, ${first} + instr(substr(${key}, ${first} + 1), char(31)) - 1)`;
}

/** users.search_key as a search by someone without billingDetails reads it. */
export const searchKeyWithoutReferral: SQL = keyWithoutReferral(sql`${users.searchKey}`);
