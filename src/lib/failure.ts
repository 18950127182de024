/**
 * The one way anything in this service fails: a coded `Failure` (like pretix's coded reasons `unpaid`,
 * `already_redeemed`, `quota`), thrown by services, rules, the event object's client and the HTTP
 * plumbing alike. It says what went wrong (code), in words (message), for invalid input where (field
 * errors, collected with `Problems`), or carries its exact body. It knows nothing of HTTP: the one
 * table of src/http/errors.ts turns each code into a status, headers and the error body of docs/api.md.
 */

/** Field errors in the shape of the request: `{"field": ["message"]}`, nested for nested input. */
export type FieldErrors = { [field: string]: string[] | FieldErrors | FieldErrors[] };

export const FAILURE_CODES = [
  /** The input is invalid: field errors, or one message about the request. */
  "invalid",
  /** No credentials, or credentials that are unknown, revoked or inactive. */
  "unauthenticated",
  /** The organizer or event does not exist for the caller, or a permission is missing. */
  "forbidden",
  /** The object is protected: in use, or already used (a redeemed voucher, a tax rule in use). */
  "in_use",
  /** The requested object (a sub-resource of the path) does not exist. */
  "not_found",
  /**
   * A scan is refused, or needs answers to questions first (pretix's check-in answers `error`
   * and `incomplete`); the failure carries the scan's answer.
   */
  "refused",
  /** The same idempotency key is still being processed, or a lock could not be taken. */
  "in_progress",
  /** The event's object could not serve a change in time (vouchers: retry later). */
  "busy",
  /** The event's object, or the database, could not serve the request (retry later). */
  "unavailable",
  /** A gift card does not hold enough credit. */
  "insufficient_credit",
  /** Too many requests of one credential or client. */
  "rate_limited",
  /** The object changed meanwhile; read it again. */
  "changed",
  /** A file (an invoice or ticket PDF, an export) is still being prepared: retry after a few seconds. */
  "not_ready",
  /** What was asked for failed for good and will not come (an export that failed). */
  "gone",
  /**
   * A sale behind an active on-sale queue without a valid admission (missing, forged, of another
   * event or date, expired, or used up); the failure carries the body that names the queue.
   */
  "queue_required",
] as const;

export type FailureCode = (typeof FAILURE_CODES)[number];

export type FailureOptions = {
  /** Field errors (code `invalid`), or a list of them for a list of inputs (batch creation). */
  fields?: FieldErrors | FieldErrors[];
  /** The field a single message belongs to. */
  field?: string;
  /** Facts a caller may need (for example `retryAfter` seconds). */
  params?: Record<string, unknown>;
  /**
   * The exact body to answer with, where pretix answers something else than a message or field
   * errors (an export's state at its download URL: `{"status": "running", "percentage": 40}`; a
   * refused scan: `{"status": "error", "reason": "already_redeemed", ...}`).
   */
  body?: unknown;
};

export class Failure extends Error {
  readonly code: FailureCode;
  readonly fields: FieldErrors | FieldErrors[] | undefined;
  readonly field: string | undefined;
  readonly params: Record<string, unknown>;
  readonly body: unknown;

  constructor(code: FailureCode, message: string, opts: FailureOptions = {}) {
    super(message);
    this.name = "Failure";
    this.code = code;
    this.fields = opts.fields;
    this.field = opts.field;
    this.params = opts.params ?? {};
    this.body = opts.body;
  }
}

export function isFailure(e: unknown, code?: FailureCode): e is Failure {
  return e instanceof Failure && (code === undefined || e.code === code);
}

/** Texts in the style of Django REST framework, which pretix clients know. */
export const MESSAGES = {
  permission: "You do not have permission to perform this action.",
  notFound: "Not found.",
  noCredentials: "Authentication credentials were not provided.",
  invalidToken: "Invalid token.",
  required: "This field is required.",
  notNull: "This field may not be null.",
  blank: "This field may not be blank.",
  invalid: "Invalid input.",
} as const;

/** A related object that does not exist, as Django REST framework says it. */
export const invalidPk = (id: unknown) => `Invalid pk "${String(id)}" - object does not exist.`;

// ---- constructors, one per kind of failure ----

/** Invalid input: field errors (or a list of them, one per element of a list input). */
export function validationError(fields: FieldErrors | FieldErrors[]): Failure {
  return new Failure("invalid", MESSAGES.invalid, { fields });
}

/** Invalid input: one message for one field. */
export function fieldError(field: string, message: string): Failure {
  return new Failure("invalid", message, { field });
}

/** Invalid input: a message about the object as a whole. */
export function nonFieldError(message: string): Failure {
  return new Failure("invalid", message, { field: "non_field_errors" });
}

/** Invalid request, explained in one message (`{"detail": ...}`). */
export const badRequest = (detail: string) => new Failure("invalid", detail);
export const forbidden = (detail: string = MESSAGES.permission) => new Failure("forbidden", detail);
export const inUse = (detail: string) => new Failure("in_use", detail);
export const notFound = (detail: string = MESSAGES.notFound) => new Failure("not_found", detail);
export const changedMeanwhile = (detail = "The object changed meanwhile; read it again.") =>
  new Failure("changed", detail);

/**
 * Collects field errors while validating and fails with all of them together. Nested input
 * (positions of an order, fees) nests its own errors with `nest`.
 */
export class Problems {
  private readonly collected: Record<string, string[] | FieldErrors | FieldErrors[]> = {};

  add(field: string, message: string): void {
    const cur = this.collected[field];
    if (Array.isArray(cur) && cur.every((m) => typeof m === "string")) (cur as string[]).push(message);
    else this.collected[field] = [message];
  }

  /** Errors of nested input under `field` (an object's, or a list's one per element). */
  nest(field: string, errors: FieldErrors | FieldErrors[]): void {
    const empty = Array.isArray(errors)
      ? errors.every((e) => Object.keys(e).length === 0)
      : Object.keys(errors).length === 0;
    if (!empty) this.collected[field] = errors;
  }

  /**
   * An error of element `index` of the nested list `field` (a list input of `length` elements):
   * the field's errors become one object per element, `{}` for the elements without errors.
   * Messages about the list as a whole (`add(field, ...)`) take precedence over it.
   */
  addAt(field: string, index: number, length: number, element: string, message: string): void {
    let cur = this.collected[field];
    if (cur === undefined) {
      cur = Array.from({ length }, (): FieldErrors => ({}));
      this.collected[field] = cur;
    }
    if (!Array.isArray(cur) || typeof cur[index] !== "object") return;
    const errors = cur[index] as Record<string, string[]>;
    (errors[element] ??= []).push(message);
  }

  /** Takes over the problems of another collection (same fields merge their messages). */
  merge(errors: FieldErrors): void {
    for (const [field, value] of Object.entries(errors)) {
      if (Array.isArray(value) && value.every((m) => typeof m === "string"))
        for (const m of value as string[]) this.add(field, m);
      else this.collected[field] = value;
    }
  }

  has(field?: string): boolean {
    return field === undefined ? Object.keys(this.collected).length > 0 : field in this.collected;
  }

  get errors(): FieldErrors {
    return this.collected;
  }

  throwIfAny(): void {
    if (this.has()) throw validationError(this.collected);
  }
}
