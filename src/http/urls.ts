import { readConfig } from "../env";
import type { AppContext } from "./context";

/** Base of customer-facing URLs (src/domain/urls.ts): PUBLIC_BASE_URL, or the origin the request came to. */
export function publicBase(c: AppContext): string {
  return readConfig(c.env).publicBaseUrl ?? new URL(c.req.url).origin;
}
