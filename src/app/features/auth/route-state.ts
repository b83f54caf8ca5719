/**
 * What the auth screens hand each other through the router's location state: the phone to prefill,
 * the app it signs in to, and why the person was sent. Kept apart from the screens, which send to
 * and read from each other.
 */
import type { App } from "./api";

/** What other screens hand to /login: the phone to prefill and why they sent the person here. */
export type LoginState = { phoneNumber?: string; app?: App; notice?: "confirmed" | "passwordReset" };

/**
 * What leads to /confirm-account: registering ("registered") or signing in to an account whose
 * phone is not confirmed yet ("unverified"); both have just sent a code.
 */
export type ConfirmPageState = { phoneNumber?: string; app?: App; reason?: "registered" | "unverified" };
