/** Response pieces shared by cart positions and order positions: answers and seats. */
import { z } from "zod";
import type { Answer } from "../services/stored-values";
import { id } from "../http/responses";

export const answerResponse = z
  .object({
    question: id(),
    answer: z.string(),
    question_identifier: z.string(),
    options: z.array(id()),
    option_identifiers: z.array(z.string()),
  })
  .meta({ id: "Answer" });

export const seatResponse = z
  .object({ id: id().nullable(), name: z.string().nullable(), seat_guid: z.string() })
  .meta({ id: "Seat" });

export function serializeAnswer(a: Answer): z.infer<typeof answerResponse> {
  return {
    question: a.question,
    answer: a.answer,
    question_identifier: a.question_identifier,
    options: a.options,
    option_identifiers: a.option_identifiers,
  };
}

export function serializeSeat(
  guid: string | null,
  seatId: number | null,
  name: string | null,
): z.infer<typeof seatResponse> | null {
  return guid === null ? null : { id: seatId, name, seat_guid: guid };
}
