/**
 * Mails about an order: placed (or waiting for approval), free, paid, canceled, a failed payment
 * attempt, approved, denied, its link sent again. Composed for the outbox; a placed or
 * paid mail may carry the order's invoice (resolved when it is delivered, see mail-attachments.ts).
 * Each position is named as pretix's order details in its mails name it: the product, and its
 * variation after a dash ("T-Shirt – L").
 */
import { composeMail } from "./mail";
import type { MailInsert } from "../../db/mail";
import { i18nText, type I18n } from "../../lib/i18n";
import { formatMoney } from "../../lib/money";

export type OrderMailFacts = {
  organizerId: number;
  organizerName: string;
  eventId: number;
  eventName: I18n;
  locale: string;
  code: string;
  email: string;
  url: string;
  total: number;
  currency: string;
  /** The positions that are not canceled: the product's and the variation's names, in every language. */
  lines: { item: I18n; variation: I18n | null; price: number }[];
  fromName: string | null;
  replyTo: string | null;
  /** The mail carries the invoice the change brought about (event setting `invoice_email_attachment`). */
  attachInvoice?: boolean;
  /**
   * How to pay, for a placed order's mail (pretix's {payment_info}: for a manual payment the
   * event setting `payment_manual_email_instructions`, filled in). Empty or absent: none.
   */
  paymentInfo?: string;
  /** A placed order that is paid already (created paid): its mail asks for no payment. */
  paid?: boolean;
  /** A comment for the customer (a denial's reason, pretix `deny` `comment`). */
  comment?: string;
};

/** A position's name in a mail: "Product – Variation", or the product alone. */
function positionName(item: I18n, variation: I18n | null, locale: string): string {
  const name = i18nText(item, locale);
  return variation ? `${name} – ${i18nText(variation, locale)}` : name;
}

export type OrderMailKind =
  | "order_placed"
  | "order_placed_require_approval"
  | "order_free"
  | "order_paid"
  | "order_canceled"
  | "order_payment_failed"
  | "order_approved"
  | "order_denied"
  | "order_resend"
  | "order_changed";

export function orderMail(kind: OrderMailKind, f: OrderMailFacts, now: number): MailInsert {
  const event = i18nText(f.eventName, f.locale);
  const subject = {
    order_placed: `Your order: ${f.code}`,
    order_placed_require_approval: `Your order was received: ${f.code}`,
    order_approved: `Your order was approved: ${f.code}`,
    order_denied: `Your order was denied: ${f.code}`,
    order_resend: `Your order: ${f.code}`,
    order_free: `Your order: ${f.code}`,
    order_paid: `Payment received for your order: ${f.code}`,
    order_canceled: `Order canceled: ${f.code}`,
    order_payment_failed: `Payment failed for your order: ${f.code}`,
    order_changed: `Your order has been changed: ${f.code}`,
  }[kind];
  const intro = {
    order_placed: f.paid
      ? `thank you for your order for ${event}. You can see it here:`
      : `thank you for your order for ${event}. Please pay it before it expires; you can pay and see its state here:`,
    order_placed_require_approval: `we received your order for ${event}. It needs to be approved by the organizer first; we will tell you when it is. You can see its state here:`,
    order_approved: f.paid
      ? `your order for ${event} was approved. As you only ordered free products, no payment is required. You can see your order here:`
      : `your order for ${event} was approved. Please pay it before it expires; you can pay and see its state here:`,
    order_denied: `unfortunately, your order for ${event} was denied by the organizer.${f.comment ? `\n\n${f.comment}` : ""}\n\nYou can see it here:`,
    order_resend: `here is the link to your order for ${event}; you can see its state, pay it or download your tickets here:`,
    order_free: `your order for ${event} was successful. As you only ordered free products, no payment is required. You can see your order here:`,
    order_paid: `we received your payment for ${event}. Your order is complete; you can see it here:`,
    order_canceled: `your order for ${event} has been canceled.${f.comment ? `\n\n${f.comment}\n\n` : " "}You can see it here:`,
    order_payment_failed: `your payment attempt for your order for ${event} has failed. Your order is still valid and you can try to pay again, with the same or another payment method, here:`,
    order_changed: `your order for ${event} has been changed. You can see it as it is now here:`,
  }[kind];
  const lines = f.lines
    .map((l) => `  ${positionName(l.item, l.variation, f.locale)}  ${formatMoney(l.price)} ${f.currency}`)
    .join("\n");
  const payment = kind === "order_placed" && f.paymentInfo ? `\n\n${f.paymentInfo}` : "";
  const text = `Hello,\n\n${intro}\n${f.url}${payment}\n\nOrder ${f.code}\n${lines}\n  Total  ${formatMoney(f.total)} ${f.currency}\n\nBest regards,\n${f.organizerName}\n`;
  return composeMail({
    kind,
    organizerId: f.organizerId,
    eventId: f.eventId,
    to: f.email,
    subject,
    text,
    fromName: f.fromName ?? f.organizerName,
    replyTo: f.replyTo,
    attachments:
      f.attachInvoice && (kind === "order_placed" || kind === "order_paid")
        ? [{ kind: "order_invoice", order: f.code }]
        : null,
    now,
  });
}
