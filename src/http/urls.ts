import { readConfig } from "../env";
import type { AppContext } from "./context";

/** Base of customer-facing URLs: PUBLIC_BASE_URL, or the origin the request came to. */
export function publicBase(c: AppContext): string {
  return readConfig(c.env).publicBaseUrl ?? new URL(c.req.url).origin;
}

export function organizerPublicUrl(c: AppContext, organizerSlug: string): string {
  return `${publicBase(c)}/${organizerSlug}/`;
}

export function eventPublicUrl(c: AppContext, organizerSlug: string, eventSlug: string): string {
  return `${publicBase(c)}/${organizerSlug}/${eventSlug}/`;
}

export function mediaUrl(c: AppContext, key: string | null): string | null {
  return key === null ? null : `${publicBase(c)}/media/${key.split("/").map(encodeURIComponent).join("/")}`;
}
