/**
 * Input field types shared by every resource: money, datetimes, dates, multi-lingual strings,
 * slugs, files. Each parses the wire form into the stored form or reports a field error.
 */
import { z } from "zod";
import { isValidTimezone, parseDate, parseDateTime, formatDate } from "../lib/datetime";
import type { I18n } from "../lib/i18n";
import { formatDecimal, ISO_4217, parseDecimal } from "../lib/money";
import { placeholderProblem } from "../lib/placeholders";
import { isRelativeDateTimeValue, isRelativeDateValue } from "../lib/reldate";

export const DATETIME_FORMAT_MESSAGE =
  "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].";

/** Money or another two-place decimal, as hundredths. */
export const decimal = (opts: { min?: number; max?: number } = {}) =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    const cents = parseDecimal(v);
    if (cents === null) {
      const text = String(v).trim();
      const m = /^[+-]?\d+\.(\d+)$/.exec(text);
      ctx.addIssue({
        code: "custom",
        message:
          m && m[1]!.replace(/0+$/, "").length > 2
            ? "Ensure that there are no more than 2 decimal places."
            : "A valid number is required.",
      });
      return z.NEVER;
    }
    if (opts.min !== undefined && cents < opts.min) {
      ctx.addIssue({
        code: "custom",
        message: `Ensure this value is greater than or equal to ${formatDecimal(opts.min)}.`,
      });
      return z.NEVER;
    }
    if (opts.max !== undefined && cents > opts.max) {
      ctx.addIssue({
        code: "custom",
        message: `Ensure this value is less than or equal to ${formatDecimal(opts.max)}.`,
      });
      return z.NEVER;
    }
    return cents;
  });

export const money = () => decimal();

/** A datetime with offset and optional fractional seconds, as epoch milliseconds. */
export const dateTime = () =>
  z.string().transform((v, ctx) => {
    const ms = parseDateTime(v);
    if (ms === null) {
      ctx.addIssue({ code: "custom", message: DATETIME_FORMAT_MESSAGE });
      return z.NEVER;
    }
    return ms;
  });

/** An ISO date, normalized to YYYY-MM-DD. */
export const date = () =>
  z.string().transform((v, ctx) => {
    const d = parseDate(v);
    if (!d) {
      ctx.addIssue({ code: "custom", message: "Date has wrong format. Use one of these formats instead: YYYY-MM-DD." });
      return z.NEVER;
    }
    return formatDate(d);
  });

/** A relative datetime: ISO datetime or RELDATE/... (stored as sent). */
export const relativeDateTime = () =>
  z.string().refine(isRelativeDateTimeValue, { message: "Enter a valid datetime or relative datetime (RELDATE/...)." });

/** A relative date: ISO date or RELDATE/<days>/-/<base>/ (stored as sent). */
export const relativeDate = () =>
  z
    .string()
    .refine(isRelativeDateValue, { message: "Enter a valid date or relative date (RELDATE/<days>/-/<base>/)." });

/** A multi-lingual string: an object of language code to text (a plain string means English). */
export const i18n = () =>
  z
    .union([z.string(), z.record(z.string().min(1).max(20), z.string())])
    .transform((v): I18n => (typeof v === "string" ? { en: v } : v));

/** A multi-lingual text that may use only the `allowed` {placeholders}, in every language. */
export const i18nWithPlaceholders = (allowed: readonly string[]) =>
  i18n().superRefine((v, ctx) => {
    for (const text of Object.values(v)) {
      const problem = placeholderProblem(text, allowed);
      if (problem) return ctx.addIssue({ code: "custom", message: problem });
    }
  });

/** A multi-lingual string that must have some text. */
export const i18nRequired = () =>
  i18n().refine((v) => Object.values(v).some((s) => s.trim() !== ""), { message: "This field may not be blank." });

export const currency = () => z.string().regex(ISO_4217, { message: "Enter a valid ISO 4217 currency code." });

export const timezone = () => z.string().refine(isValidTimezone, { message: "Enter a valid timezone." });

/** Slugs in URLs: lowercase letters, digits, dots and dashes; starting with a letter or digit. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9.-]*$/;
export const slug = () =>
  z.string().min(1, { message: "This field may not be blank." }).max(50).regex(SLUG_PATTERN, {
    message:
      "The slug may only contain lowercase letters, numbers, dots and dashes, and must start with a letter or number.",
  });

/** A `file:<id>` reference from the upload endpoint (resolved by http/files.ts). */
export const fileRef = () =>
  z.string().regex(/^file:[0-9a-f-]{36}$/, { message: "Expected a file ID from the upload endpoint (file:<id>)." });

export const email = () => z.string().trim().email({ message: "Enter a valid email address." }).max(190);

export const id = () => z.number().int().positive();
