import type { CampaignStatus, MessageStatus } from "../../../../shared/campaigns";
import type { BadgeTone } from "../../../components/ui/Badge";

/** A campaign's state as a badge tone: running is info, done is success, failed is danger. */
export function campaignTone(status: CampaignStatus): BadgeTone {
  if (status === "done") return "success";
  if (status === "failed") return "danger";
  if (status === "cancelled") return "neutral";
  if (status === "scheduled") return "brand";
  return "info";
}

/** A recipient row's state as a badge tone. */
export function messageTone(status: MessageStatus): BadgeTone {
  switch (status) {
    case "delivered":
    case "sent":
      return "success";
    case "failed":
      return "danger";
    case "skipped":
      return "warning";
    case "deferred":
      return "brand";
    default:
      return "info";
  }
}
