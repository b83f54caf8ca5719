import { type CampaignMessage, createCampaign } from "../../lib/admin-api";

export type ListCampaignBody = CampaignMessage & {
  source: "list";
  phones: string[];
};

export function createListCampaign(body: ListCampaignBody) {
  return createCampaign(body);
}
