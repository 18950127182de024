/**
 * Customer-facing URLs (organizer and event pages, order and payment pages, stored files),
 * below the service's public base (PUBLIC_BASE_URL, or the origin a request came to:
 * src/http/context.ts).
 */

export function organizerPublicUrl(base: string, organizerSlug: string): string {
  return `${base}/${organizerSlug}/`;
}

export function eventPublicUrl(base: string, organizerSlug: string, eventSlug: string): string {
  return `${base}/${organizerSlug}/${eventSlug}/`;
}

/** The customer's order page (`url`); the payment pages lie below it. */
export function orderUrl(base: string, organizerSlug: string, eventSlug: string, code: string, secret: string): string {
  return `${eventPublicUrl(base, organizerSlug, eventSlug)}order/${code}/${secret}/`;
}

/** The payment page of a payment (`payment_url`, below the order's `url`). */
export function paymentUrl(orderUrl: string, localId: number): string {
  return `${orderUrl}pay/${localId}/`;
}

/** A stored file (R2 key below media/). */
export function mediaUrl(base: string, key: string | null): string | null {
  return key === null ? null : `${base}/media/${key.split("/").map(encodeURIComponent).join("/")}`;
}

/** The hosted waiting page of an event's on-sale queue (`waiting_page_url`); a date's queue names its date. */
export function queuePageUrl(
  base: string,
  organizerSlug: string,
  eventSlug: string,
  subeventId: number | null,
): string {
  const page = `${eventPublicUrl(base, organizerSlug, eventSlug)}queue/`;
  return subeventId === null ? page : `${page}?subevent=${subeventId}`;
}
