import { useTranslation } from "react-i18next";
import { type CampaignView as Campaign, MESSAGE_STATUSES } from "../../../../shared/campaigns";
import { ProgressBar } from "../../../components/ui/ProgressBar";

/** pending / deferred / sending / sent / delivered / failed / skipped as one stacked bar. */
export function CampaignProgress({ campaign, legend = true }: { campaign: Pick<Campaign, "id" | "total" | "counts">; legend?: boolean }) {
  const { t } = useTranslation("admin");
  const c = campaign.counts;
  // Everything but pending, deferred and sending has reached its end for this send.
  const done = c.sent + c.delivered + c.failed + c.skipped;
  const total = Math.max(campaign.total, done + c.pending + (c.deferred ?? 0) + c.sending);
  return (
    <ProgressBar
      label={t("campaigns.progressOf", { id: campaign.id })}
      total={total}
      done={done}
      legend={legend}
      parts={MESSAGE_STATUSES.map((s) => ({ key: s, tone: s, label: t(`status.${s}`), value: c[s] ?? 0 }))}
    />
  );
}
