import { useTranslation } from "react-i18next";
import type { MultiSelectLabels } from "../../components/ui/MultiSelect";
import type { PagerLabels } from "../../components/ui/Pager";
import type { SmsTextAreaLabels } from "../../components/ui/SmsTextArea";

/** The shared controls take their words from the caller; these are the admin namespace's. */
export function usePagerLabels(): PagerLabels {
  const { t } = useTranslation("admin");
  return {
    rowsPerPage: t("paging.rowsPerPage"),
    previous: t("paging.previous"),
    next: t("paging.next"),
    page: (page, pages) => t("paging.page", { page, pages }),
  };
}

export function useMultiSelectLabels(): MultiSelectLabels {
  const { t } = useTranslation("admin");
  return { selected: (n) => t("multiSelect.selected", { n }), clear: t("multiSelect.clear"), filter: t("multiSelect.filter"), none: t("multiSelect.none") };
}

export function useSmsLabels(): SmsTextAreaLabels {
  const { t } = useTranslation("admin");
  return {
    counter: (c) => t("sms.counter", { remaining: c.remaining, messages: c.messages, encoding: t(`sms.encoding.${c.encoding}`) }),
    limitReached: t("sms.limitReached"),
  };
}

export function useTriLabels() {
  const { t } = useTranslation("admin");
  return { all: t("tri.all"), yes: t("tri.yes"), no: t("tri.no") };
}
