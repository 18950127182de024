/**
 * Building blocks of the response schemas: the data types of docs/api.md as they appear on the wire.
 * Each resource family declares one zod schema of its response (its field table in docs/api.md) next
 * to its serializer, which is typed by it; the API description is generated from these.
 */
import { z } from "zod";

/** An integer id. */
export const id = () => z.number().int();

/** Money: a decimal string with the currency's places ("12.50"). */
export const money = () => z.string().meta({ description: "decimal number as a string", example: "12.50" });

/** A decimal number as a string (tax rates, percentages). */
export const decimalString = () => z.string().meta({ description: "decimal number as a string", example: "19.00" });

/** A datetime: ISO 8601 in UTC. */
export const dateTime = () => z.string().meta({ format: "date-time", description: "ISO 8601, UTC" });

/** A date: ISO 8601 (YYYY-MM-DD). */
export const date = () => z.string().meta({ format: "date" });

/** A multi-lingual string: language code → text. */
export const i18n = () =>
  z.record(z.string(), z.string()).meta({ description: "multi-lingual string: language code to text" });

/** An absolute URL. */
export const url = () => z.string().meta({ format: "uri" });

/** Free-form JSON object (opaque where the service only stores it). */
export const object = () => z.record(z.string(), z.unknown());
