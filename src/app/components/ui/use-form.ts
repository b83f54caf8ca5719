import { type ChangeEvent, type FormEvent, useCallback, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { ZodType } from "zod";
import { z } from "../../../shared/zod";
import { ApiClientError } from "../../lib/api-client";

/**
 * Form state validated with the same zod schemas the Worker uses (src/shared/auth.ts). Errors are
 * kept as translation keys and translated when shown, so switching language re-words them.
 *
 * The shared schemas speak English (the Worker's messages); the identity namespace ("auth") holds
 * their words in both languages, keyed here by the schema's message.
 */
const SCHEMA_MESSAGE_KEYS: Record<string, string> = {
  "At least 8 characters": "auth:validation.passwordLength",
  "At most 256 characters": "auth:validation.passwordTooLong",
  "Include a number": "auth:validation.passwordNumber",
  "Include an uppercase letter": "auth:validation.passwordUppercase",
  "Include a special character": "auth:validation.passwordSpecial",
  "Enter a US or Canada phone number": "auth:validation.phone",
  // The phone refusals of src/shared/phone.ts (checkSmsPhone).
  "This area code does not exist": "auth:validation.phoneAreaCode",
  "The three digits after the area code are not valid": "auth:validation.phoneExchange",
  "Toll-free numbers cannot receive our texts. Use a mobile number": "auth:validation.phoneTollFree",
  "Premium-rate numbers cannot be used": "auth:validation.phonePremium",
  "Only US and Canada phone numbers can be used": "auth:validation.phoneOutside",
  "This area code is not in service in the US or Canada": "auth:validation.phoneNotInService",
  "Enter a valid email": "auth:validation.email",
  "Enter the 6-digit code": "auth:validation.code",
};

export const REQUIRED_KEY = "auth:validation.required";
const KEY_PATTERN = /^(auth|common):[\w.]+$/;

/** The translation key for a validation message: our own keys pass through, schema words map. */
export function validationKey(issue: { message: string; code?: string }): string {
  if (KEY_PATTERN.test(issue.message)) return issue.message;
  const known = SCHEMA_MESSAGE_KEYS[issue.message];
  if (known) return known;
  return issue.code === "too_big" ? "auth:validation.tooLong" : "auth:validation.invalid";
}

/** The message for a failed call: network, rate limit and server faults have their own words. */
export function apiErrorKey(error: unknown, fallbackKey: string): string {
  if (error instanceof ApiClientError) {
    if (error.code === "network_error") return "auth:errors.network";
    if (error.status === 429) return "auth:errors.tooManyAttempts";
    if (error.status >= 500) return "common:errors.api_error";
  }
  return fallbackKey;
}

/** An optional text field: empty means absent; anything typed must pass the schema. */
export function optionalText<T extends ZodType>(schema: T) {
  return z.union([z.literal(""), schema]).transform((v) => (v === "" ? undefined : (v as z.output<T>)));
}

/**
 * The options of a "passwords don't match" refinement on `field`. It runs even while other fields
 * still have issues (zod skips object refinements then by default), so every problem shows at once.
 */
export function mismatch(field: string) {
  return {
    path: [field],
    message: "common:errors.passwordsDontMatch",
    when: (payload: z.core.ParsePayload) => typeof (payload.value as Record<string, unknown> | undefined)?.[field] === "string",
  };
}

type Message = { key: string; options?: Record<string, unknown> };

export function useForm<V extends Record<string, string>, O>({
  initial,
  schema,
  required = [],
}: {
  initial: V;
  schema: ZodType<O>;
  /** Empty required fields get "required" and the form-level "input required fields" message. */
  required?: (keyof V & string)[];
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState<V>(initial);
  const [errors, setErrors] = useState<Partial<Record<keyof V, string>>>({});
  const [formError, setFormErrorState] = useState<Message | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const attempted = useRef(false);
  const busy = useRef(false);

  const check = useCallback(
    (current: V): { data: O | null; errors: Partial<Record<keyof V, string>>; missing: boolean } => {
      const found: Partial<Record<keyof V, string>> = {};
      let missing = false;
      for (const name of required) {
        if (!current[name]?.trim()) {
          found[name] = REQUIRED_KEY;
          missing = true;
        }
      }
      const result = schema.safeParse(current);
      if (result.success && !missing) return { data: result.data, errors: found, missing };
      for (const issue of result.error?.issues ?? []) {
        const name = issue.path[0] as keyof V | undefined;
        if (name !== undefined && !found[name]) found[name] = validationKey(issue);
      }
      return { data: null, errors: found, missing };
    },
    [required, schema],
  );

  // The latest values, so a change computes its errors without side effects inside a state updater.
  const latest = useRef(initial);
  const setValue = useCallback(
    (name: keyof V & string, value: string) => {
      const next = { ...latest.current, [name]: value };
      latest.current = next;
      setValues(next);
      // After a failed submit, errors follow the typing so a fixed field clears at once.
      if (attempted.current) {
        const result = check(next);
        setErrors(result.errors);
        if (!result.missing) setFormErrorState((current) => (current?.key === "common:errors.inputRequiredFields" ? null : current));
      }
    },
    [check],
  );

  const field = (name: keyof V & string) => ({
    name,
    value: values[name] ?? "",
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setValue(name, event.target.value),
    error: errors[name] ? t(errors[name] as string) : null,
  });

  /** A field error from the server's answer (e.g. a wrong code), as a translation key. */
  const setFieldError = useCallback((name: keyof V & string, key: string | null) => setErrors((current) => ({ ...current, [name]: key ?? undefined })), []);

  const setFormError = useCallback((key: string | null, options?: Record<string, unknown>) => setFormErrorState(key ? { key, options } : null), []);

  /** Validates, then runs the handler with the parsed data; the submit button is disabled meanwhile. */
  const onSubmit = (handler: (data: O) => Promise<void> | void) => async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy.current) return;
    const form = event.currentTarget;
    attempted.current = true;
    const result = check(latest.current);
    setErrors(result.errors);
    if (result.data === null) {
      setFormErrorState(result.missing ? { key: "common:errors.inputRequiredFields" } : null);
      // Keyboard users land on the first field to fix.
      requestAnimationFrame(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    setFormErrorState(null);
    busy.current = true;
    setSubmitting(true);
    try {
      await handler(result.data);
    } finally {
      busy.current = false;
      setSubmitting(false);
    }
  };

  const reset = useCallback((next: V) => {
    attempted.current = false;
    latest.current = next;
    setValues(next);
    setErrors({});
    setFormErrorState(null);
  }, []);

  return {
    values,
    setValue,
    field,
    submitting,
    onSubmit,
    reset,
    formError: formError ? t(formError.key, formError.options ?? {}) : null,
    setFormError,
    setFieldError,
  };
}
