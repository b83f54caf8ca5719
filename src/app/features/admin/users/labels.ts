import { useTranslation } from "react-i18next";
import type { PagerLabels } from "../../../components/ui/Pager";
import { USERS_NS } from "../../../i18n/admin-users";

/** The pager's words on the user pages: "Page N of M". */
export function usePagerLabels(): PagerLabels {
  const { t } = useTranslation(USERS_NS);
  return {
    rowsPerPage: t("paging.rowsPerPage"),
    previous: t("paging.previous"),
    next: t("paging.next"),
    page: (page, pages) => t("paging.page", { page, pages }),
  };
}
