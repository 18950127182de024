/**
 * The questions' columns of the `orderlist` and `checkinlist` exports: the events' questions as
 * fixed when the export starts, their headers (a column per option of a multiple choice
 * question, or one with the chosen options listed), and a ticket's answers as cells.
 */
import { readQuestions } from "../../db/exports/common";
import { type I18n, i18nText } from "../../lib/i18n";
import { json, text, yesNo } from "./cells";
import type { ExportContext } from "./exporter";
import type { Cell } from "./formats";

export type QuestionFact = { id: number; question: I18n; type: string; options: { id: number; answer: I18n }[] };

/** An answer as an order position stores it. */
export type StoredAnswer = { question: number; answer: string; options?: number[] };

export async function loadQuestions(x: ExportContext): Promise<QuestionFact[]> {
  const { questions, options } = await readQuestions(
    x.db,
    x.events.map((e) => e.id),
  );
  return questions.map((q) => ({
    id: Number(q.id),
    question: json<I18n>(q.question),
    type: text(q.type),
    options: options
      .filter((o) => Number(o.question_id) === Number(q.id))
      .map((o) => ({ id: Number(o.id), answer: json<I18n>(o.answer) })),
  }));
}

export function questionHeaders(x: ExportContext, questions: QuestionFact[], grouped: boolean): string[] {
  return questions.flatMap((q) => {
    const title = i18nText(q.question, x.locale);
    if (q.type === "M" && !grouped) return q.options.map((o) => `${title} – ${i18nText(o.answer, x.locale)}`);
    return [title];
  });
}

/** The cells of a ticket's answers (an add-on's own answers before its parent's). */
export function answerCells(
  x: ExportContext,
  questions: QuestionFact[],
  grouped: boolean,
  answersRaw: unknown,
  parentAnswersRaw?: unknown,
): Cell[] {
  const byQuestion = new Map<number, StoredAnswer>();
  for (const a of json<StoredAnswer[] | null>(parentAnswersRaw) ?? []) byQuestion.set(a.question, a);
  for (const a of json<StoredAnswer[] | null>(answersRaw) ?? []) byQuestion.set(a.question, a);
  return questions.flatMap((q): Cell[] => {
    const a = byQuestion.get(q.id);
    if (q.type === "M") {
      const chosen = new Set(a?.options ?? []);
      if (grouped)
        return [
          q.options
            .filter((o) => chosen.has(o.id))
            .map((o) => i18nText(o.answer, x.locale))
            .join(", "),
        ];
      return q.options.map((o) => yesNo(chosen.has(o.id)));
    }
    return [a ? text(a.answer) : ""];
  });
}
