/** What the emulator's checkout page does with a card: the checks a card form runs, then Stripe's test cards. */

export type CardInput = { number: string; expMonth: number; expYear: number; cvc: string };
export type CardProblem = { field: "number" | "expiry" | "cvc"; message: string };
export type Decline = { code: string; decline_code: string; message: string };

/**
 * Stripe's test card that pays and is then disputed as fraudulent (4000 0000 0000 0259): the
 * checkout completes, and charge.dispute.created follows, as on Stripe.
 */
export const DISPUTED_TEST_CARD = "4000000000000259";

/** Stripe's test cards as the emulator knows them: null succeeds, otherwise the decline it answers. */
const TEST_CARDS: Record<string, Decline | null> = {
  "4242424242424242": null,
  "5555555555554444": null,
  "4000000000000002": { code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." },
  "4000000000009995": { code: "card_declined", decline_code: "insufficient_funds", message: "Your card has insufficient funds." },
  [DISPUTED_TEST_CARD]: null,
};

/** A card that is not a test card, declined as Stripe's test mode declines a live card. */
const LIVE_CARD_DECLINE: Decline = {
  code: "card_declined",
  decline_code: "test_mode_live_card",
  message: "Your card was declined. Use a Stripe test card such as 4242 4242 4242 4242.",
};

/** The card number's digits, spaces and dashes left out. */
export const cardDigits = (number: string) => number.replace(/\D/g, "");

/** Luhn's check digit test, as card forms run before sending anything. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** What is wrong with the card as typed (its number, its expiry at `now`, its security code), or undefined. */
export function cardProblem(card: CardInput, now: number): CardProblem | undefined {
  if (!luhnValid(cardDigits(card.number))) return { field: "number", message: "Your card number is invalid." };
  const today = new Date(now);
  const expYear = card.expYear < 100 ? 2000 + card.expYear : card.expYear;
  if (card.expMonth < 1 || card.expMonth > 12 || expYear * 12 + card.expMonth < today.getUTCFullYear() * 12 + today.getUTCMonth() + 1) {
    return { field: "expiry", message: "Your card's expiration date is in the past." };
  }
  if (!/^\d{3,4}$/.test(card.cvc)) return { field: "cvc", message: "Your card's security code is incomplete." };
  return undefined;
}

/** How Stripe answers a valid card's digits: null pays; otherwise its decline (any card not a test card is declined). */
export function declineOf(digits: string): Decline | null {
  return Object.hasOwn(TEST_CARDS, digits) ? (TEST_CARDS[digits] ?? null) : LIVE_CARD_DECLINE;
}
