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

/** "U+00E1": how a character is named when it may not be visible (a no-break space, a zero-width joiner). */
const codePointOf = (character: string) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

export function useSmsLabels(): SmsTextAreaLabels {
  const { t } = useTranslation("admin");
  return {
    counter: (c) =>
      t("sms.counter", {
        remaining: c.remaining,
        messages: c.messages,
        // Name the character that forces UTF-16, so the admin can replace it (any text, any language).
        encoding: c.unicodeCharacter
          ? t("sms.unicodeBecause", { character: c.unicodeCharacter, codePoint: codePointOf(c.unicodeCharacter) })
          : t(`sms.encoding.${c.encoding}`),
      }),
    limitReached: t("sms.limitReached"),
  };
}

export function useTriLabels() {
  const { t } = useTranslation("admin");
  return { all: t("tri.all"), yes: t("tri.yes"), no: t("tri.no") };
}
