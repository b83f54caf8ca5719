import { useTranslation } from "react-i18next";
import type { PagerLabels } from "../../components/ui/Pager";

export function usePagerLabels(): PagerLabels {
  const { t } = useTranslation("admin");
  return { rowsPerPage: t("paging.rowsPerPage"), previous: t("paging.previous"), next: t("paging.next"), page: (page) => t("paging.page", { page }) };
}
