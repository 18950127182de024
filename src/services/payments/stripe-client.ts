/**
 * The official Stripe SDK as the service uses it inside workerd: its fetch HTTP client and
 * SubtleCrypto provider, Stripe's API or the address of STRIPE_API_BASE (the tests' local
 * stand-in), one retry of a failed request (with an idempotency key, so a retried creation
 * happens once), and the organizer's keys opened from their sealed settings. Errors are logged
 * with Stripe's type, code, status and request id, never with a key.
 */
import Stripe from "stripe";
import type { DB } from "../../db/client";
import { storedOrganizerSettings } from "../../db/settings";
import { type Env, readConfig } from "../../lib/env";
import { log } from "../../lib/log";
import { openSetting } from "../events/sealed-settings";

export { Stripe };

export const STRIPE_SECRET_KEY = "payment_stripe_secret_key";
export const STRIPE_WEBHOOK_SECRET = "payment_stripe_webhook_secret";

/** How long a webhook's signature stays valid (Stripe's default tolerance: five minutes). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const subtleCrypto = Stripe.createSubtleCryptoProvider();

/** An SDK client for one organizer's account. */
export function stripeClient(env: Env, secretKey: string): Stripe {
  const api = readConfig(env).stripeApi;
  return new Stripe(secretKey, {
    httpClient: Stripe.createFetchHttpClient(),
    maxNetworkRetries: 1,
    timeout: 15_000,
    telemetry: false,
    ...(api ? { host: api.host, port: api.port, protocol: api.protocol } : {}),
  });
}

/** The organizer's Stripe keys, opened (null where not set). */
export type StripeKeys = { secretKey: string | null; webhookSecret: string | null };

export async function stripeKeys(env: Env, db: DB, organizerId: number): Promise<StripeKeys> {
  const stored = await storedOrganizerSettings(db, organizerId);
  const [secretKey, webhookSecret] = await Promise.all([
    openSetting(env, organizerId, STRIPE_SECRET_KEY, stored[STRIPE_SECRET_KEY]),
    openSetting(env, organizerId, STRIPE_WEBHOOK_SECRET, stored[STRIPE_WEBHOOK_SECRET]),
  ]);
  return { secretKey, webhookSecret };
}

/**
 * A webhook's event, verified with the SDK (the `Stripe-Signature` header over the exact body,
 * within the tolerance); null when the signature is missing, forged, stale, or the body changed.
 */
export async function verifiedEvent(
  payload: string,
  header: string | undefined,
  secret: string,
): Promise<Stripe.Event | null> {
  try {
    return await Stripe.webhooks.constructEventAsync(
      payload,
      header ?? "",
      secret,
      SIGNATURE_TOLERANCE_SECONDS,
      subtleCrypto,
    );
  } catch (e) {
    if (e instanceof Stripe.errors.StripeSignatureVerificationError) return null;
    throw e;
  }
}

/** Stripe's answer refused the request (a card, request or idempotency error), as opposed to Stripe not answering. */
export function isStripeRefusal(e: unknown): e is Stripe.errors.StripeError {
  return (
    e instanceof Stripe.errors.StripeError &&
    !(e instanceof Stripe.errors.StripeConnectionError) &&
    !(e instanceof Stripe.errors.StripeAPIError) &&
    (e.statusCode ?? 0) < 500
  );
}

/** Logs a failed Stripe call: what Stripe said about it, without the request's parameters or keys. */
export function logStripeError(message: string, e: unknown, fields: Record<string, unknown> = {}): void {
  if (e instanceof Stripe.errors.StripeError) {
    log.error(message, {
      ...fields,
      stripe_error: {
        type: e.type,
        code: e.code ?? null,
        status: e.statusCode ?? null,
        request_id: e.requestId ?? null,
      },
    });
  } else {
    log.error(message, { ...fields, error: e });
  }
}
