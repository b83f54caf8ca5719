import type { TFunction } from "i18next";
import type { NavigateFunction } from "react-router";
import { confirmedAction } from "../../components/ui/confirmed-action";
import { type CampaignRequest, type CreatedCampaign, createCampaign, serverMessage } from "./api";

/**
 * Confirm, a loading toast that is always dismissed, then "queued for N" in the admin's language
 * (the messages go out from the queue; the campaign page shows them sent) with a link to the
 * campaign's progress, or the server's error (or ours).
 * Resolves to the created campaign, or null when cancelled or failed.
 */
export async function confirmAndSend(
  body: CampaignRequest,
  recipients: number,
  t: TFunction<"admin">,
  navigate: NavigateFunction,
): Promise<CreatedCampaign | null> {
  return confirmedAction({
    confirm: t("send.confirm", { n: recipients }),
    loading: t("send.sending"),
    run: () => createCampaign(body),
    success: (created) => (
      <>
        {t("send.queued", { count: created.campaign.total })} <CampaignLink id={created.campaign.id} navigate={navigate} label={t("send.viewProgress")} />
      </>
    ),
    failure: (err) => serverMessage(err) ?? t("errors.generic"),
  });
}

/**
 * The toaster lives outside the router (main.tsx mounts it), so the link navigates with the
 * screen's navigate function rather than being a router <Link>.
 */
export function CampaignLink({ id, navigate, label }: { id: number; navigate: NavigateFunction; label: string }) {
  const href = `/admin/campaigns/${id}`;
  return (
    <a
      href={href}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        void navigate(href);
      }}
    >
      {label}
    </a>
  );
}
