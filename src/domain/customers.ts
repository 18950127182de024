/** Customer account rules (pretix docs customers.rst; pretix's Customer model). */
import { randomString } from "../lib/crypto";

/** pretix's identifier alphabet and length: upper-case letters and digits without 0/O, 1/I. */
const IDENTIFIER_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const IDENTIFIER_LENGTH = 7;

/** A new random customer identifier; `attempt` lengthens it after collisions. */
export function generateCustomerIdentifier(attempt = 0): string {
  return randomString(IDENTIFIER_LENGTH + Math.floor(attempt / 2), IDENTIFIER_ALPHABET);
}

/** How long the link in an activation mail works (Django's password reset default: 3 days). */
export const ACTIVATION_LINK_VALIDITY_MS = 3 * 86_400_000;

/** Shortest password the activation page accepts (Django's default validator). */
export const MIN_PASSWORD_LENGTH = 8;

export const EMAIL_TAKEN = "A customer with this email address already exists.";

/** The activation mail: the customer sets a password through the link and so verifies the address. */
export function activationMailText(input: { name: string | null; organizerName: string; link: string }): { subject: string; text: string } {
  const greeting = input.name ? `Hello ${input.name},` : "Hello,";
  return {
    subject: `Activate your account at ${input.organizerName}`,
    text:
      `${greeting}\n\n` +
      `an account has been created for you at ${input.organizerName}.\n\n` +
      `To activate it, choose a password by opening this link:\n${input.link}\n\n` +
      `The link works for three days. If you did not expect this mail, you can ignore it.\n\n` +
      `Best regards,\n${input.organizerName}\n`,
  };
}
