import { type CampaignMessage, createCampaign } from "../api";

export type ListCampaignBody = CampaignMessage & {
  source: "list";
  phones: string[];
};

export function createListCampaign(body: ListCampaignBody) {
  return createCampaign(body);
}
