import { useSession } from "../../lib/session";

export function useAdminUser() {
  const user = useSession().user;
  return {
    name: user?.name ?? "",
    /** docs/product.md, roles: role name "owner" is the owner; only the owner may lift the one-segment limit. */
    isOwner: user?.role?.name === "owner",
    billingDetails: Boolean(user?.role?.properties.billingDetails),
  };
}
