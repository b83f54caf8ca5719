/**
 * Validation by code. A shared schema's rule carries a code as its message; the Worker answers the
 * English words of that code (and the code itself, in the error details), and the SPA words the
 * code in the reader's language (the "forms" namespace, validation.<code>). Nothing is matched by
 * its English text.
 */
export const VALIDATION_MESSAGES = {
  required: "Required",
  tooLong: "Too long",
  invalid: "Check this field",
  passwordLength: "At least 8 characters",
  passwordTooLong: "At most 256 characters",
  passwordNumber: "Include a number",
  passwordUppercase: "Include an uppercase letter",
  passwordSpecial: "Include a special character",
  passwordsDontMatch: "Passwords don't match",
  phone: "Enter a US or Canada phone number",
  phoneAreaCode: "This area code does not exist",
  phoneExchange: "The three digits after the area code are not valid",
  phoneTollFree: "Toll-free numbers cannot receive our texts. Use a mobile number",
  phonePremium: "Premium-rate numbers cannot be used",
  phoneOutside: "Only US and Canada phone numbers can be used",
  phoneNotInService: "This area code is not in service in the US or Canada",
  email: "Enter a valid email",
  code: "Enter the 6-digit code",
} as const;

export type ValidationCode = keyof typeof VALIDATION_MESSAGES;

export function isValidationCode(value: unknown): value is ValidationCode {
  return typeof value === "string" && Object.hasOwn(VALIDATION_MESSAGES, value);
}

/** One issue as the API reports it: the field's path, English words, and the code when the rule has one. */
export type IssueDetail = { path: string; message: string; code?: ValidationCode };

export function describeIssue(issue: { path: readonly PropertyKey[]; message: string }, prefix: readonly PropertyKey[] = []): IssueDetail {
  const path = [...prefix, ...issue.path].map(String).join(".");
  return isValidationCode(issue.message) ? { path, message: VALIDATION_MESSAGES[issue.message], code: issue.message } : { path, message: issue.message };
}
