import { PaymentsProviderError } from "../provider-error";
import type { ExpressAccount } from "../types";
import type { EmulatorEvents } from "./events";
import type { Account, AccountLink, Transfer } from "./objects";
import { type EmulatorStore, emulatorId, refusal, seconds } from "./store";

/**
 * The emulator's Connect: Express accounts, the onboarding page behind an account link (the SPA's
 * /local-stripe/onboarding/:id), and transfers to an account, recorded as paid out.
 */
export class EmulatedConnect {
  constructor(
    private readonly store: EmulatorStore,
    private readonly events: EmulatorEvents,
  ) {}

  async createExpressAccount(r: { userId: number; email: string | null; country: "US" | "CA" }) {
    const id = await this.store.idempotent(`express-account-${r.userId}`, async () => {
      const account: Account = {
        id: emulatorId("acct"),
        object: "account",
        type: "express",
        email: r.email,
        country: r.country,
        details_submitted: false,
        payouts_enabled: false,
        charges_enabled: false,
        capabilities: { transfers: "inactive" },
        metadata: { userId: String(r.userId) },
      };
      await this.store.put(account);
      return account.id;
    });
    return { id };
  }

  async createAccountLink(r: { accountId: string; refreshUrl: string; returnUrl: string }) {
    if (!(await this.store.get<Account>(r.accountId, "account"))) throw refusal(`No such account: '${r.accountId}'`, "resource_missing", 404);
    const id = emulatorId("link");
    const link: AccountLink = {
      id,
      object: "account_link",
      account: r.accountId,
      refresh_url: r.refreshUrl,
      return_url: r.returnUrl,
      url: `${new URL(r.returnUrl).origin}/local-stripe/onboarding/${id}`,
      expires_at: seconds(Date.now() + 30 * 60_000),
    };
    await this.store.put(link);
    return { url: link.url };
  }

  async accountLink(id: string): Promise<(AccountLink & { accountEmail: string | null }) | undefined> {
    const link = await this.store.get<AccountLink>(id, "account_link");
    if (!link) return undefined;
    const account = await this.store.get<Account>(link.account, "account");
    return { ...link, accountEmail: account?.email ?? null };
  }

  /** The onboarding page's Submit: the account can now receive transfers; account.updated goes out as Connect sends it. */
  async completeOnboarding(linkId: string, now = Date.now()): Promise<{ redirectUrl: string } | undefined> {
    const link = await this.store.get<AccountLink>(linkId, "account_link");
    if (!link) return undefined;
    if (link.expires_at < seconds(now)) return { redirectUrl: link.refresh_url };
    const account = (await this.store.get<Account>(link.account, "account"))!;
    const updated: Account = { ...account, details_submitted: true, payouts_enabled: true, charges_enabled: true, capabilities: { transfers: "active" } };
    await this.store.overwrite(account.id, updated);
    await this.events.emit("account.updated", updated, { account: account.id });
    return { redirectUrl: link.return_url };
  }

  async retrieveAccount(accountId: string): Promise<ExpressAccount> {
    const account = await this.store.get<Account>(accountId, "account");
    if (!account) throw refusal(`No such account: '${accountId}'`, "resource_missing", 404);
    return {
      id: account.id,
      detailsSubmitted: account.details_submitted,
      payoutsEnabled: account.payouts_enabled && account.capabilities.transfers === "active",
    };
  }

  async createTransfer(r: { amountCents: number; destination: string; transferGroup: string; idempotencyKey: string; commissionId: number }) {
    const id = await this.store.idempotent(r.idempotencyKey, async () => {
      const account = await this.store.get<Account>(r.destination, "account");
      if (!account) throw refusal(`No such destination: '${r.destination}'`, "resource_missing", 404);
      if (account.capabilities.transfers !== "active")
        throw refusal("Your destination account needs to have the transfers capability enabled", "insufficient_capabilities_for_transfer");
      const transfer: Transfer = {
        id: emulatorId("tr"),
        object: "transfer",
        amount: r.amountCents,
        amount_reversed: 0,
        destination: r.destination,
        transfer_group: r.transferGroup,
        metadata: { commissionId: String(r.commissionId) },
      };
      await this.store.put(transfer);
      return transfer.id;
    });
    return { id };
  }

  async reverseTransfer(r: { transferId: string; amountCents: number; idempotencyKey: string }) {
    const id = await this.store.idempotent(r.idempotencyKey, async () => {
      const transfer = await this.store.get<Transfer>(r.transferId, "transfer");
      if (!transfer) throw refusal(`No such transfer: '${r.transferId}'`, "resource_missing", 404);
      if (r.amountCents < 1 || transfer.amount_reversed + r.amountCents > transfer.amount)
        throw refusal("Amount exceeds the transfer's unreversed amount", "amount_too_large");
      const updated = { ...transfer, amount_reversed: transfer.amount_reversed + r.amountCents };
      if (!(await this.store.replaceIf(transfer.id, "amount_reversed", transfer.amount_reversed, updated))) {
        throw new PaymentsProviderError("The transfer changed meanwhile", "lock_timeout", true, 409);
      }
      const reversalId = emulatorId("trr");
      await this.store.put({ id: reversalId, object: "transfer_reversal", amount: r.amountCents, transfer: transfer.id });
      return reversalId;
    });
    return { id };
  }
}
