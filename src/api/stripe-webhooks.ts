/**
 * Stripe's webhooks for an organizer: `POST /api/v1/organizers/{organizer}/stripe/webhook/`,
 * the endpoint the organizer registers in its Stripe account. No credentials: the
 * `Stripe-Signature` header, checked with the organizer's webhook signing secret, is the
 * credential. A forged, tampered or stale delivery is refused with 400 and changes nothing;
 * an accepted one answers 200 `{"received": true}` (also when it was delivered before, or is
 * of no interest), and 503 when it must be delivered again later (services/payments/stripe-events.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import { organizerBySlug } from "../services/events/storefront-reads";
import { type AppEnv, publicBase } from "../http/context";
import { apiDocs } from "../http/openapi";
import { object } from "../http/responses";
import { publicScope } from "../http/tenancy";
import { notFound } from "../lib/failure";
import { receiveStripeWebhook } from "../services/payments/stripe-events";

export const stripeWebhookRoutes = new Hono<AppEnv>();

/** The path of an organizer's Stripe webhook endpoint (public: app.ts lists it). */
export const STRIPE_WEBHOOK_PATH = /^\/api\/v1\/organizers\/[^/]+\/stripe\/webhook\/?$/;

const receivedResponse = z.object({ received: z.literal(true) }).meta({ id: "StripeWebhookReceived" });

/** A Stripe event as the description shows it (Stripe's `Event` object; the signature decides what is read). */
const stripeEventBody = z
  .looseObject({ id: z.string(), object: z.literal("event"), type: z.string(), data: z.object({ object: object() }) })
  .meta({ id: "StripeEvent" });

stripeWebhookRoutes.post(
  "/organizers/:organizer/stripe/webhook",
  publicScope(),
  apiDocs("Payments").ok(receivedResponse, {
    summary: "Receive a Stripe webhook",
    description:
      "The endpoint of the organizer's Stripe webhook (events `checkout.session.completed`, `checkout.session.async_payment_succeeded`, " +
      "`checkout.session.async_payment_failed`, `checkout.session.expired`, `refund.created`, `refund.updated`, `refund.failed`). " +
      "No credentials: the `Stripe-Signature` header must sign the exact body with the organizer's `payment_stripe_webhook_secret` " +
      "within five minutes, else 400 and nothing changes. Each event acts once, however often it is delivered.",
    failures: ["not_found", "unavailable"],
    serviceBody: stripeEventBody,
  }),
  async (c) => {
    const organizer = await organizerBySlug(c.var, c.req.param("organizer"));
    if (!organizer) throw notFound();
    await receiveStripeWebhook(
      { env: c.env, db: c.var.db, organizer, baseUrl: publicBase(c), now: Date.now() },
      await c.req.text(),
      c.req.header("Stripe-Signature"),
    );
    return c.json<z.infer<typeof receivedResponse>>({ received: true });
  },
);
