import type { TFunction } from "i18next";
import { formatCents } from "../../../shared/billing";
import { formatDDMMYY } from "../../../shared/dates";
import type { PagerLabels } from "../../components/ui/Pager";

/** Money in the interface's language: $39.99 / US$39.99. */
export function money(cents: number, language: string): string {
  return formatCents(cents, language === "es" ? "es-US" : "en-US");
}

/** Dates are shown DD/MM/YY across the product. */
export function day(epochMs: number | null | undefined): string {
  return formatDDMMYY(epochMs) ?? "—";
}

/** The words for a payment's failure or decline code (translation keys of the billing namespace). */
export function failureKey(code: string | null): string {
  switch (code) {
    case "insufficient_funds":
      return "failure.insufficientFunds";
    case "generic_decline":
    case "card_declined":
    case "test_mode_live_card":
      return "failure.declined";
    case "expired":
      return "failure.expired";
    case "canceled":
      return "failure.canceled";
    case "checkout_unavailable":
      return "failure.unavailable";
    default:
      return "failure.generic";
  }
}

/** The Pager's words, from the billing namespace. */
export function pagerLabels(t: TFunction<"billing">): PagerLabels {
  return {
    rowsPerPage: t("pager.rowsPerPage"),
    previous: t("pager.previous"),
    next: t("pager.next"),
    page: (page) => t("pager.page", { page }),
  };
}
