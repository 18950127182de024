/**
 * First path segments that belong to the service itself, never to an organizer: the operator
 * command refuses them as organizer slugs, customer pages and the request's routing to an
 * organizer group pass them by.
 */
export const RESERVED_SEGMENTS: ReadonlySet<string> = new Set([
  "api",
  "media",
  "invite",
  "customer",
  "static",
  "widget",
  "admin",
  "control",
  "pay",
  "order",
  "favicon.ico",
  "robots.txt",
]);
