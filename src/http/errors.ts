/**
 * The error vocabulary of the API. Every failure leaves the service as one of the spec's
 * bodies: `{"detail": "..."}` or field errors `{"field": ["message", ...]}` (nested objects
 * and lists for nested input; `non_field_errors` for errors of the whole object).
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type FieldErrors = { [field: string]: string[] | FieldErrors | FieldErrors[] };

export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(status: ContentfulStatusCode, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    super(typeof body.detail === "string" ? body.detail : `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export const MESSAGES = {
  permission: "You do not have permission to perform this action.",
  notFound: "Not found.",
  noCredentials: "Authentication credentials were not provided.",
  invalidToken: "Invalid token.",
  required: "This field is required.",
  notNull: "This field may not be null.",
  blank: "This field may not be blank.",
} as const;

/** 400 with field errors. */
export function validationError(errors: FieldErrors): ApiError {
  return new ApiError(400, errors);
}

/** 400 with one message for one field. */
export function fieldError(field: string, message: string): ApiError {
  return new ApiError(400, { [field]: [message] });
}

/** 400 with a message about the object as a whole. */
export function nonFieldError(message: string): ApiError {
  return new ApiError(400, { non_field_errors: [message] });
}

/** 4xx with `{"detail": ...}`. */
export function detailError(status: ContentfulStatusCode, detail: string, headers?: Record<string, string>): ApiError {
  return new ApiError(status, { detail }, headers);
}

export const badRequest = (detail: string) => detailError(400, detail);
export const forbidden = (detail: string = MESSAGES.permission) => detailError(403, detail);
export const notFound = (detail: string = MESSAGES.notFound) => detailError(404, detail);
export const conflict = (detail: string, headers?: Record<string, string>) => detailError(409, detail, headers);

/** Collects field errors while validating; throws them together. */
export class ErrorCollector {
  private readonly errors: Record<string, string[]> = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  has(field?: string): boolean {
    return field === undefined ? Object.keys(this.errors).length > 0 : field in this.errors;
  }

  throwIfAny(): void {
    if (this.has()) throw validationError(this.errors);
  }
}
