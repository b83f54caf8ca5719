import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Badge } from "../../../components/ui/Badge";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { PageHead } from "../../../components/ui/PageHead";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { StatusView } from "../../../components/ui/StatusView";
import "../../../i18n/admin";
import type { CampaignView as Campaign } from "../../../../shared/campaigns";
import { formatDateTime } from "../format";
import { usePagerLabels } from "../labels";
import { isRunning, useCampaigns } from "./api";
import { CampaignProgress } from "./CampaignProgress";
import { campaignTone } from "./format";
import "./campaigns.css";

/** /admin/campaigns: every send, newest first, with live progress while one is running. */
export default function CampaignsPage() {
  const { t } = useTranslation("admin");
  const pagerLabels = usePagerLabels();
  const { page, pageSize, pager } = usePaging();
  const campaigns = useCampaigns({ page, pageSize });

  const columns: Column<Campaign>[] = [
    {
      key: "created",
      header: t("campaigns.created"),
      cell: (c) => <Link to={`/admin/campaigns/${c.id}`}>{formatDateTime(c.createdAt)}</Link>,
    },
    { key: "author", header: t("campaigns.author"), cell: (c) => c.author?.name ?? "" },
    { key: "channel", header: t("campaigns.channel"), cell: (c) => t(`message.${c.channel}`) },
    { key: "source", header: t("campaigns.source"), cell: (c) => t(`campaigns.sources.${c.source}`) },
    { key: "total", header: t("campaigns.audience"), cell: (c) => c.total },
    { key: "status", header: t("campaigns.status"), cell: (c) => <Badge tone={campaignTone(c.status)}>{t(`campaigns.statuses.${c.status}`)}</Badge> },
    { key: "progress", header: t("campaigns.progress"), className: "col-progress", cell: (c) => <CampaignProgress campaign={c} legend={false} /> },
  ];

  return (
    <section className="campaigns">
      <PageHead back={{ to: "/admin/notifications", label: t("actions.goBack") }} title={t("campaigns.title")} />
      {campaigns.error && !campaigns.data ? (
        <StatusView kind="error" title={t("errors.generic")} onRetry={() => void campaigns.mutate()} />
      ) : !campaigns.data ? (
        <StatusView kind="loading" title={t("campaigns.loading")} />
      ) : (
        <>
          {campaigns.data.rows.some(isRunning) && (
            <p className="muted live-note" role="status">
              {t("campaigns.live")}
            </p>
          )}
          <DataTable
            caption={t("campaigns.title")}
            columns={columns}
            rows={campaigns.data.rows}
            rowKey={(c) => c.id}
            busy={campaigns.isLoading}
            empty={
              <>
                {t("campaigns.empty")} <Link to="/admin/notifications">{t("campaigns.sendOne")}</Link>
              </>
            }
          />
          <Pager {...pager} total={campaigns.data.total} labels={pagerLabels} />
        </>
      )}
    </section>
  );
}
