import { createCampaign, type CampaignMessage } from "../../lib/admin-api";

export type ListCampaignBody = CampaignMessage & {
  source: "list";
  phones: string[];
};

export function createListCampaign(body: ListCampaignBody) {
  return createCampaign(body);
}
