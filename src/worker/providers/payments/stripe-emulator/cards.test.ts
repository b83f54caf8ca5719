import { describe, expect, it } from "vitest";
import { type CardInput, cardProblem, DISPUTED_TEST_CARD, declineOf, luhnValid } from "./cards";

const NOW = Date.UTC(2026, 10, 27); // November 2026
const card = (over: Partial<CardInput> = {}): CardInput => ({ number: "4242 4242 4242 4242", expMonth: 12, expYear: 30, cvc: "123", ...over });

describe("luhnValid", () => {
  it.each([
    ["4242424242424242", true],
    ["5555555555554444", true],
    [DISPUTED_TEST_CARD, true],
    ["4242424242424241", false],
    ["42424242424", false], // 11 digits: too short
    ["42424242424242424242", false], // 20 digits: too long
    ["4242-4242-4242-4242", false], // only digits are read
    ["", false],
  ])("%s → %s", (digits, valid) => expect(luhnValid(digits)).toBe(valid));
});

describe("cardProblem", () => {
  it.each<[string, Partial<CardInput>, ReturnType<typeof cardProblem>]>([
    ["a test card, spaced", {}, undefined],
    ["dashes in the number", { number: "4242-4242-4242-4242" }, undefined],
    ["a four-digit year", { expYear: 2030 }, undefined],
    ["this month still counts", { expMonth: 11, expYear: 26 }, undefined],
    ["a four-digit security code", { cvc: "1234" }, undefined],
    ["a wrong check digit", { number: "4242 4242 4242 4241" }, { field: "number", message: "Your card number is invalid." }],
    ["last month", { expMonth: 10, expYear: 26 }, { field: "expiry", message: "Your card's expiration date is in the past." }],
    ["month 13", { expMonth: 13 }, { field: "expiry", message: "Your card's expiration date is in the past." }],
    ["month 0", { expMonth: 0 }, { field: "expiry", message: "Your card's expiration date is in the past." }],
    ["a two-digit security code", { cvc: "12" }, { field: "cvc", message: "Your card's security code is incomplete." }],
    ["letters in the security code", { cvc: "12a" }, { field: "cvc", message: "Your card's security code is incomplete." }],
    ["the number is checked first", { number: "1", expMonth: 0, cvc: "" }, { field: "number", message: "Your card number is invalid." }],
  ])("%s", (_, over, problem) => expect(cardProblem(card(over), NOW)).toEqual(problem));
});

describe("declineOf", () => {
  it.each([
    ["4242424242424242", null],
    ["5555555555554444", null],
    [DISPUTED_TEST_CARD, null],
    ["4000000000000002", "generic_decline"],
    ["4000000000009995", "insufficient_funds"],
    ["4111111111111111", "test_mode_live_card"], // valid, but not one of Stripe's test cards
  ])("%s → %s", (digits, declineCode) => expect(declineOf(digits)?.decline_code ?? null).toBe(declineCode));
});
