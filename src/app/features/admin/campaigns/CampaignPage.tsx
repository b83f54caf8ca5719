import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate, useParams } from "react-router";
import { Badge } from "../../../components/ui/Badge";
import { confirmedAction } from "../../../components/ui/confirmed-action";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { useConfirm } from "../../../components/ui/Dialog";
import { PageHead } from "../../../components/ui/PageHead";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { StatusView } from "../../../components/ui/StatusView";
import "../../../i18n/admin";
import { type CampaignView as Campaign, type LedgerRow, MESSAGE_STATUSES, type MessageStatus } from "../../../../shared/campaigns";
import { formatUsPhone } from "../../../../shared/phone";
import { ApiClientError, api, unwrap, unwrapText } from "../../../lib/api-client";
import { serverMessage } from "../api";
import { formatDateTime } from "../format";
import { usePagerLabels } from "../labels";
import { isRunning, useCampaign, useLedger } from "./api";
import { CampaignProgress } from "./CampaignProgress";
import { campaignTone, messageTone } from "./format";
import "./campaigns.css";

/** /admin/campaigns/:id: the campaign's progress and its recipient ledger. */
export default function CampaignPage() {
  const { t } = useTranslation("admin");
  const { id = "" } = useParams();
  const campaign = useCampaign(id);

  let body: ReactNode;
  if (campaign.error && !campaign.data) {
    const notFound = campaign.error instanceof ApiClientError && campaign.error.status === 404;
    body = (
      <StatusView
        kind="error"
        title={notFound ? t("campaigns.notFound") : t("errors.generic")}
        onRetry={notFound ? undefined : () => void campaign.mutate()}
        action={
          notFound ? (
            <Link className="button button-secondary" to="/admin/campaigns">
              {t("campaigns.title")}
            </Link>
          ) : undefined
        }
      />
    );
  } else if (!campaign.data) {
    body = <StatusView kind="loading" title={t("campaigns.loading")} />;
  } else {
    // Keyed by id: a retry opens the new campaign with fresh filters and export state.
    body = <CampaignDetail key={campaign.data.campaign.id} campaign={campaign.data.campaign} />;
  }

  return (
    <section className="campaign">
      <PageHead back={{ to: "/admin/campaigns", label: t("campaigns.all") }} title={t("campaigns.one", { id })}>
        <Link to="/admin/notifications">{t("notifications.title")}</Link>
      </PageHead>
      {body}
    </section>
  );
}

function CampaignDetail({ campaign }: { campaign: Campaign }) {
  const { t } = useTranslation("admin");
  const navigate = useNavigate();
  const running = isRunning(campaign);
  const [retrying, setRetrying] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const { mutate } = useCampaign(String(campaign.id));
  const [confirm, confirmDialog] = useConfirm();

  async function cancel() {
    setCancelling(true);
    const cancelled = await confirmedAction({
      confirm: () => confirm({ title: t("campaigns.cancelConfirm"), confirmLabel: t("campaigns.cancel"), cancelLabel: t("campaigns.keep"), tone: "danger" }),
      loading: t("campaigns.cancel"),
      run: () => unwrap(api.admin.campaigns[":id"].cancel.$post({ param: { id: String(campaign.id) } })),
      success: () => t("campaigns.cancelled"),
      failure: (err) => serverMessage(err, t) ?? t("errors.generic"),
    });
    setCancelling(false);
    if (cancelled) await mutate({ campaign: cancelled.campaign }, { revalidate: false });
  }

  async function retryFailed() {
    setRetrying(true);
    const retried = await confirmedAction({
      confirm: () => confirm({ title: t("campaigns.retryConfirm", { n: campaign.counts.failed }), confirmLabel: t("campaigns.retryFailed") }),
      loading: t("send.sending"),
      run: () => unwrap(api.admin.campaigns[":id"]["retry-failed"].$post({ param: { id: String(campaign.id) } })),
      success: (res) => t("campaigns.retried", { n: res.campaign.total }),
      failure: (err) => serverMessage(err, t) ?? t("errors.generic"),
    });
    setRetrying(false);
    if (retried) void navigate(`/admin/campaigns/${retried.campaign.id}`);
  }

  return (
    <>
      {confirmDialog}
      <div className="card campaign-summary">
        <dl className="facts">
          <div>
            <dt>{t("campaigns.status")}</dt>
            <dd>
              <Badge tone={campaignTone(campaign.status)}>{t(`campaigns.statuses.${campaign.status}`)}</Badge>
            </dd>
          </div>
          <div>
            <dt>{t("campaigns.created")}</dt>
            <dd>{formatDateTime(campaign.createdAt)}</dd>
          </div>
          <div>
            <dt>{t("campaigns.author")}</dt>
            <dd>{campaign.author?.name ?? ""}</dd>
          </div>
          <div>
            <dt>{t("campaigns.channel")}</dt>
            <dd>{t(`message.${campaign.channel}`)}</dd>
          </div>
          <div>
            <dt>{t("campaigns.purpose")}</dt>
            <dd>{t(`message.purposes.${campaign.purpose}`)}</dd>
          </div>
          <div>
            <dt>{t("campaigns.source")}</dt>
            <dd>{t(`campaigns.sources.${campaign.source}`)}</dd>
          </div>
          <div>
            <dt>{t("campaigns.audience")}</dt>
            <dd>{campaign.total}</dd>
          </div>
        </dl>
        <p className="campaign-message">
          {campaign.channel === "sms" ? campaign.message : campaign.template ? `${campaign.template.name} (${campaign.template.language})` : ""}
        </p>
        {campaign.status === "scheduled" && campaign.scheduledAt !== null && (
          <p className="notice" role="status">
            {t("campaigns.scheduledFor", { at: formatDateTime(campaign.scheduledAt) })}
          </p>
        )}
        {campaign.counts.deferred > 0 && campaign.deferred && (
          <p className="notice deferred-note" role="status">
            <Badge tone="brand">{t("status.deferred")}</Badge>{" "}
            {campaign.deferred.first === campaign.deferred.last
              ? t("campaigns.deferredNote", { n: campaign.counts.deferred, last: formatDateTime(campaign.deferred.last) })
              : t("campaigns.deferredNoteRange", {
                  n: campaign.counts.deferred,
                  first: formatDateTime(campaign.deferred.first),
                  last: formatDateTime(campaign.deferred.last),
                })}
          </p>
        )}
        {campaign.inDoubt > 0 && (
          <p className="notice in-doubt-note" role="status">
            <Badge tone="warning">{t("campaigns.inDoubt")}</Badge> {t("campaigns.inDoubtNote", { n: campaign.inDoubt })}
          </p>
        )}
        <CampaignProgress campaign={campaign} />
        {running && (
          <p className="muted live-note" role="status">
            {t("campaigns.live")}
          </p>
        )}
        <div className="actions">
          <button type="button" className="button" disabled={running || retrying || campaign.counts.failed === 0} onClick={() => void retryFailed()}>
            {t("campaigns.retryFailed")}
          </button>
          <CsvExport campaignId={campaign.id} />
          {(campaign.status === "scheduled" || campaign.status === "queued") && (
            <button type="button" className="button button-secondary" disabled={cancelling} onClick={() => void cancel()}>
              {t("campaigns.cancel")}
            </button>
          )}
        </div>
      </div>
      <Ledger campaignId={String(campaign.id)} live={running} />
    </>
  );
}

/** The export needs the bearer token, so it is fetched and handed over as a blob link. */
function CsvExport({ campaignId }: { campaignId: number }) {
  const { t } = useTranslation("admin");
  const [state, setState] = useState<{ url: string } | { error: string } | "loading" | null>(null);
  const link = useRef<HTMLAnchorElement>(null);
  const filename = `campaign-${campaignId}.csv`;
  const url = state && typeof state === "object" && "url" in state ? state.url : null;

  useEffect(() => {
    if (url) link.current?.click();
    return () => {
      if (url) URL.revokeObjectURL(url);
    };
  }, [url]);

  async function download() {
    setState("loading");
    try {
      const csv = await unwrapText(api.admin.campaigns[":id"]["export.csv"].$get({ param: { id: String(campaignId) } }, { headers: { Accept: "text/csv" } }));
      const blob = new Blob([csv], { type: "text/csv;charset=utf-8" });
      setState({ url: URL.createObjectURL(blob) });
    } catch (err) {
      setState({ error: serverMessage(err, t) ?? t("errors.generic") });
    }
  }

  return (
    <span className="csv-export">
      <button type="button" className="button button-secondary" disabled={state === "loading"} onClick={() => void download()}>
        {state === "loading" ? t("campaigns.exporting") : t("campaigns.exportCsv")}
      </button>
      {url && (
        <a ref={link} href={url} download={filename}>
          {filename}
        </a>
      )}
      {state && typeof state === "object" && "error" in state && (
        <span className="field-error" role="alert">
          {state.error}
        </span>
      )}
    </span>
  );
}

function Ledger({ campaignId, live }: { campaignId: string; live: boolean }) {
  const { t } = useTranslation("admin");
  const pagerLabels = usePagerLabels();
  const statusId = useId();
  const [status, setStatus] = useState<MessageStatus | "">("");
  const { page, pageSize, restart, pager } = usePaging();
  const ledger = useLedger(campaignId, { status: status || undefined, page, pageSize }, live);
  const { mutate } = ledger;
  // When the campaign finishes, the ledger stops polling: fetch it once more so it shows the end.
  useEffect(() => {
    if (!live) void mutate();
  }, [live, mutate]);

  const columns: Column<LedgerRow>[] = [
    { key: "phone", header: t("columns.phone"), className: "nowrap", cell: (r) => formatUsPhone(r.phone) || r.phone },
    { key: "name", header: t("columns.name"), cell: (r) => r.name ?? "" },
    {
      key: "status",
      header: t("campaigns.status"),
      cell: (r) => (
        <>
          <Badge tone={messageTone(r.status)}>{t(`status.${r.status}`)}</Badge>
          {r.status === "deferred" && r.deferredUntil ? (
            <small className="muted"> {t("review.waitsUntil", { at: formatDateTime(r.deferredUntil) })}</small>
          ) : null}
        </>
      ),
    },
    { key: "provider", header: t("campaigns.providerId"), cell: (r) => <code>{r.providerId ?? ""}</code> },
    { key: "error", header: t("campaigns.errorCode"), cell: (r) => (r.errorCode ? <span title={r.errorMessage ?? undefined}>{r.errorCode}</span> : "") },
    { key: "attempts", header: t("campaigns.attempts"), cell: (r) => r.attempts },
    { key: "updated", header: t("campaigns.updated"), cell: (r) => formatDateTime(r.updatedAt) },
  ];

  return (
    <section className="ledger" aria-labelledby={`${statusId}-title`}>
      <h2 id={`${statusId}-title`}>{t("campaigns.ledger")}</h2>
      <div className="field ledger-filter">
        <label htmlFor={statusId}>{t("campaigns.filterStatus")}</label>
        <select
          id={statusId}
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as MessageStatus | "");
            restart();
          }}
        >
          <option value="">{t("tri.all")}</option>
          {MESSAGE_STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`status.${s}`)}
            </option>
          ))}
        </select>
      </div>
      {ledger.error && !ledger.data ? (
        <StatusView kind="error" compact title={t("errors.generic")} onRetry={() => void ledger.mutate()} />
      ) : !ledger.data ? (
        <StatusView kind="loading" compact title={t("campaigns.loadingLedger")} />
      ) : (
        <>
          <DataTable
            caption={t("campaigns.ledger")}
            columns={columns}
            rows={ledger.data.rows}
            rowKey={(r) => r.phone}
            busy={ledger.isLoading}
            empty={live ? t("campaigns.ledgerPreparing") : t("campaigns.ledgerEmpty")}
          />
          <Pager {...pager} total={ledger.data.total} labels={pagerLabels} />
        </>
      )}
    </section>
  );
}
