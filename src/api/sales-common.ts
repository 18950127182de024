/** Pieces shared by the cart and order endpoints: position input, answers, seats, refusals. */
import { z } from "zod";
import type { Answer } from "../db/schema";
import type { Refusal } from "../domain/inventory";
import type { FieldErrors } from "../domain/failure";
import { email, money } from "../http/fields";

export const answerInput = z.object({
  question: z.number().int(),
  answer: z.string().max(10000).optional(),
  options: z.array(z.number().int()).max(100).optional(),
});

/** Fields of a requested position common to carts and orders. */
export const positionFields = {
  item: z.number().int(),
  variation: z.number().int().nullable().optional(),
  price: money().nullable().optional(),
  seat: z.string().trim().min(1).max(190).nullable().optional(),
  attendee_name: z.string().max(255).nullable().optional(),
  attendee_name_parts: z.record(z.string().max(50), z.string().max(255)).optional(),
  attendee_email: email().nullable().optional(),
  subevent: z.number().int().nullable().optional(),
  voucher: z.string().trim().max(255).nullable().optional(),
  answers: z.array(answerInput).max(200).optional(),
};

export function serializeAnswer(a: Answer) {
  return {
    question: a.question,
    answer: a.answer,
    question_identifier: a.question_identifier,
    options: a.options,
    option_identifiers: a.option_identifiers,
  };
}

export function serializeSeat(guid: string | null, id: number | null, name: string | null) {
  return guid === null ? null : { id, name, seat_guid: guid };
}

/** The message a client sees for a refusal of the event object. */
export function refusalMessage(r: Refusal): string {
  switch (r.code) {
    case "quota":
      return r.quotaId === null
        ? "The product is not available (no quota is configured for it)."
        : `There is not enough quota available on quota ${r.quotaId} to perform the operation.`;
    case "seat_taken":
      return `The seat ${r.seat} is already taken.`;
    case "seat_twice":
      return `The seat ${r.seat} was requested more than once.`;
    case "voucher_used_up":
      return "The voucher has already been used the maximum number of times.";
    case "voucher_expired":
      return "The voucher has expired.";
    case "voucher_unknown":
      return "Voucher code is not valid.";
  }
}

export function refusalErrors(refusals: Refusal[]): FieldErrors {
  return { non_field_errors: [...new Set(refusals.map(refusalMessage))] };
}
