/** Stripe's objects as the emulator keeps them (local_stripe_objects.data): Stripe's fields, as Stripe shapes them. */

export type Json = Record<string, unknown>;

export type CheckoutSession = {
  id: string;
  object: "checkout.session";
  mode: "payment";
  status: "open" | "complete" | "expired";
  payment_status: "unpaid" | "paid";
  amount_total: number;
  currency: string;
  client_reference_id: string;
  customer_email: string | null;
  metadata: Record<string, string>;
  payment_intent: string | null;
  success_url: string;
  cancel_url: string;
  url: string;
  created: number;
  expires_at: number;
  /** Not Stripe's: what the emulator's page shows (Stripe keeps these on line items). */
  local: { product_name: string; description: string; transfer_group: string; intent_metadata: Record<string, string> };
};

export type Charge = { id: string; object: "charge"; amount: number; amount_refunded: number; refunded: boolean; payment_intent: string; metadata: Json };
export type Dispute = {
  id: string;
  object: "dispute";
  amount: number;
  currency: string;
  charge: string;
  payment_intent: string;
  reason: string;
  status: "needs_response" | "won" | "lost";
  created: number;
};
export type Account = {
  id: string;
  object: "account";
  type: "express";
  email: string | null;
  country: string;
  details_submitted: boolean;
  payouts_enabled: boolean;
  charges_enabled: boolean;
  capabilities: { transfers: "inactive" | "active" };
  metadata: Json;
};
export type AccountLink = { id: string; object: "account_link"; account: string; refresh_url: string; return_url: string; url: string; expires_at: number };
export type Transfer = { id: string; object: "transfer"; amount: number; amount_reversed: number; destination: string; transfer_group: string; metadata: Json };
