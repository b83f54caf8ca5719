import type { TFunction } from "i18next";
import type { NavigateFunction } from "react-router";
import { toast } from "../../../components/ui/Toast";
import { type CampaignRequest, type CreatedCampaign, createCampaign, serverMessage } from "../api";

/**
 * Spec §2/§7/§8: confirm, a loading toast that is always dismissed, then the server's message (or
 * ours) with a link to the campaign's progress, or the server's error (or ours).
 * Resolves to the created campaign, or null when cancelled or failed.
 */
export async function confirmAndSend(
  body: CampaignRequest,
  recipients: number,
  t: TFunction<"admin">,
  navigate: NavigateFunction,
): Promise<CreatedCampaign | null> {
  if (!window.confirm(t("send.confirm", { n: recipients }))) return null;
  const loading = toast.loading(t("send.sending"));
  try {
    const created = await createCampaign(body);
    toast.success(
      <>
        {created.message || t("send.sent", { n: recipients })} <CampaignLink id={created.campaign.id} navigate={navigate} label={t("send.viewProgress")} />
      </>,
    );
    return created;
  } catch (err) {
    toast.error(serverMessage(err) ?? t("errors.generic"));
    return null;
  } finally {
    toast.dismiss(loading);
  }
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
