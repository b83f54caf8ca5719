import type { ChangeEvent } from "react";
import { formatPhoneAsTyped } from "../../../shared/phone";
import { TextField, type TextFieldProps } from "./FormField";

/**
 * Formats the input in place and keeps the caret after the same digit of the number, so typing
 * or deleting in the middle does not jump to the end. Works for controlled inputs and for
 * react-hook-form's register (both read event.target.value after this).
 */
function formatInPlace(input: HTMLInputElement) {
  const raw = input.value;
  const formatted = formatPhoneAsTyped(raw);
  if (formatted === raw) return;
  const caret = input.selectionStart ?? raw.length;
  const rawDigits = raw.replace(/\D/g, "");
  const country = rawDigits.startsWith("1") ? 1 : 0;
  const nationalBefore = Math.max(0, raw.slice(0, caret).replace(/\D/g, "").length - country);
  input.value = formatted;
  let position = formatted.length;
  if (nationalBefore === 0) position = Math.min(formatted.length, 4);
  else {
    // Skip "+1": count national digits only.
    let seen = 0;
    for (let i = 2; i < formatted.length; i++) {
      if (/\d/.test(formatted[i]!) && ++seen === nationalBefore) {
        position = i + 1;
        break;
      }
    }
  }
  if (document.activeElement === input) input.setSelectionRange(position, position);
}

/** A US/Canada phone input that formats as typed: +1 (305) 555-0100. */
export function PhoneField({ onChange, ...props }: TextFieldProps) {
  return (
    <TextField
      type="tel"
      inputMode="tel"
      autoComplete="tel"
      placeholder="+1 (305) 555-0100"
      {...props}
      onChange={(event: ChangeEvent<HTMLInputElement>) => {
        formatInPlace(event.currentTarget);
        onChange?.(event);
      }}
    />
  );
}
