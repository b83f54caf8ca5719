import { zodResolver } from "@hookform/resolvers/zod";
import type { TFunction } from "i18next";
import { type BaseSyntheticEvent, useState } from "react";
import {
  type FieldError,
  type FieldPath,
  type FieldValues,
  type Resolver,
  type SubmitHandler,
  type UseFormRegisterReturn,
  type UseFormReturn,
  useForm,
} from "react-hook-form";
import { useTranslation } from "react-i18next";
import type { ZodType } from "zod";
import { isValidationCode, type ValidationCode } from "../../shared/validation";
import { z } from "../../shared/zod";
import { ApiClientError } from "./api-client";
import "../i18n/forms";

/**
 * The one way to build a form (docs/conventions.md, "Forms"): react-hook-form validated by a zod
 * schema, built from the schemas the Worker validates with (src/shared), so a form the browser
 * accepts is one the server accepts. Messages are codes (src/shared/validation.ts) or translation
 * keys, worded when shown, so switching language re-words them; nothing matches English text.
 *
 *   const form = useSchemaForm(loginSchema, { phoneNumber: "", password: "" });
 *   <form onSubmit={form.onSubmit(async (data) => { ... form.setFormError("auth:errors.x") })} noValidate>
 *     <TextField {...form.field("phoneNumber")} label={...} />
 *     <FormMessage>{form.formError}</FormMessage>
 *     <button disabled={form.submitting}>...</button>
 */

// A namespace may have a hyphen ("admin-users:reason.required").
const TRANSLATION_KEY = /^[\w-]+:[\w.]+$/;

/** A field's message in words: a validation code, or a translation key a screen set from a server answer. */
export function fieldErrorText(t: TFunction, error: Pick<FieldError, "message" | "type"> | undefined): string | null {
  if (!error) return null;
  const message = error.message ?? "";
  if (TRANSLATION_KEY.test(message)) return t(message);
  const code: ValidationCode = isValidationCode(message) ? message : error.type === "too_big" ? "tooLong" : "invalid";
  return t(`forms:validation.${code}`);
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

/**
 * A failed call as the console's form message (`form.setFormError(...refusalMessage(err, key))`):
 * a refusal (4xx but 429) in the server's own words, which say what to fix ("already refunded");
 * anything else as `apiErrorKey` says.
 */
export function refusalMessage(error: unknown, fallbackKey: string): [key: string, options?: Record<string, unknown>] {
  if (error instanceof ApiClientError && error.status >= 400 && error.status < 500 && error.status !== 429)
    return ["forms:refused", { message: error.message }];
  return [apiErrorKey(error, fallbackKey)];
}

/** A text field that must be filled in: blank says "required" before the rule itself speaks (the value is passed on as typed). */
export function required<T extends ZodType<unknown, string>>(schema: T) {
  return z
    .string()
    .refine((value) => value.trim() !== "", "required" satisfies ValidationCode)
    .pipe(schema);
}

/** An optional text field: empty means absent; anything typed must pass the schema. */
export function optionalText<T extends ZodType<unknown, string>>(schema: T) {
  return z.union([z.literal(""), schema]).transform((v) => (v === "" ? undefined : (v as z.output<T>)));
}

/**
 * The options of a "passwords don't match" refinement on `field`. It runs even while other fields
 * still have issues (zod skips object refinements then by default), so every problem shows at once.
 */
export function mismatch(field: string) {
  return {
    path: [field],
    message: "passwordsDontMatch" satisfies ValidationCode,
    when: (payload: z.core.ParsePayload) => typeof (payload.value as Record<string, unknown> | undefined)?.[field] === "string",
  };
}

type Message = { key: string; options?: Record<string, unknown> };

export type SchemaForm<Input extends FieldValues, Output extends FieldValues> = UseFormReturn<Input, unknown, Output> & {
  /** The props of a TextField/PasswordField/SelectField: its registration and its error in words. */
  field: (name: FieldPath<Input>) => UseFormRegisterReturn<FieldPath<Input>> & { error: string | null };
  submitting: boolean;
  /** Validates, then runs the handler with the parsed data; the form is `submitting` meanwhile. `onInvalid` runs when validation stops it. */
  onSubmit: (handler: SubmitHandler<Output>, onInvalid?: () => void) => (event?: BaseSyntheticEvent) => Promise<void>;
  /** The form-level message: what the server said, set by the screen, or "input required fields". */
  formError: string | null;
  setFormError: (key: string | null, options?: Record<string, unknown>) => void;
  /** A field error from the server's answer (e.g. a wrong code), as a translation key. */
  setFieldError: (name: FieldPath<Input>, key: string) => void;
};

export function useSchemaForm<Input extends FieldValues, Output extends FieldValues>(
  schema: ZodType<Output, Input>,
  defaultValues: Input,
): SchemaForm<Input, Output> {
  const { t } = useTranslation();
  const form = useForm<Input, unknown, Output>({
    // zodResolver's overloads want a schema of a concrete zod class; ours is any schema of these types.
    resolver: zodResolver(schema as never) as unknown as Resolver<Input, unknown, Output>,
    defaultValues: defaultValues as never,
    // Checked on submit; after a failed submit, errors follow the typing so a fixed field clears at once.
    mode: "onSubmit",
    reValidateMode: "onChange",
  });
  const [serverError, setServerError] = useState<Message | null>(null);
  const { errors, isSubmitting, submitCount } = form.formState;
  const missing = submitCount > 0 && Object.values(errors).some((error) => (error as FieldError | undefined)?.message === "required");

  return {
    ...form,
    field: (name: FieldPath<Input>) => ({ ...form.register(name), error: fieldErrorText(t, form.getFieldState(name, form.formState).error) }),
    submitting: isSubmitting,
    onSubmit: (handler: SubmitHandler<Output>, onInvalid?: () => void) =>
      form.handleSubmit(
        async (data) => {
          setServerError(null);
          await handler(data);
        },
        () => {
          setServerError(null);
          onInvalid?.();
        },
      ),
    formError: serverError ? t(serverError.key, serverError.options ?? {}) : missing ? t("forms:inputRequiredFields") : null,
    setFormError: (key: string | null, options?: Record<string, unknown>) => setServerError(key ? { key, options } : null),
    setFieldError: (name: FieldPath<Input>, key: string) => form.setError(name, { type: "server", message: key }),
  };
}

/**
 * A form of composite controls (multi-selects, date pickers, a message composer) that hand whole
 * values up instead of registering inputs: the values, `update(patch)`, and each field's error in
 * words. After a failed submit every change re-checks the whole form, so an error whose cause is
 * fixed (a date range put back in order) clears at once.
 */
export type ValueForm<Values extends FieldValues> = SchemaForm<Values, Values> & {
  values: Values;
  update: (patch: Partial<Values>) => void;
  /** A path's error in words; `options` fill a translation key's placeholders. */
  errorText: (name: string, options?: Record<string, unknown>) => string | undefined;
};

export function useValueForm<Values extends FieldValues>(schema: ZodType<unknown, Values>, defaultValues: Values): ValueForm<Values> {
  const { t } = useTranslation();
  const form = useSchemaForm(schema as ZodType<Values, Values>, defaultValues);
  const values = form.watch() as Values;
  const update = (patch: Partial<Values>) => {
    for (const [name, value] of Object.entries(patch)) form.setValue(name as FieldPath<Values>, value as never, { shouldDirty: true });
    if (form.formState.isSubmitted) void form.trigger();
  };
  const errorText = (name: string, options?: Record<string, unknown>) => {
    const error = (form.formState.errors as Record<string, FieldError | undefined>)[name];
    return error?.message && TRANSLATION_KEY.test(error.message) && options ? t(error.message, options) : (fieldErrorText(t, error) ?? undefined);
  };
  return { ...form, values, update, errorText };
}
