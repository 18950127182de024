/**
 * The closed sets of values the database stores in its columns (order states, question types,
 * price modes, ...), as the routes validate and describe them. They are defined once, with the
 * schema (src/db/schema/); routes reach them here, not in db/.
 */
export {
  ARRIVAL_ORDERS,
  CHECKIN_ERROR_REASONS,
  DISCOUNT_SUBEVENT_MODES,
  ORDER_STATUSES,
  PRICE_MODES,
  QUESTION_TYPES,
  REFUND_SOURCES,
  REFUND_STATES,
  SENDMAIL_SEND_TO,
  WEBHOOK_CALL_STATES,
} from "../db/schema";
export type { Answer, InvoiceAddress, PaymentState } from "../db/schema";
