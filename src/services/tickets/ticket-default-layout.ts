/**
 * The ticket layout of events without one of their own, in pretix's layout format (A4
 * portrait): drawn by ticket-render.ts like any stored layout. It shows what pretix's default
 * ticket layout shows — event, start (`event_begin`, of the position's date in a series, with
 * the event's time zone), location, product and variation, attendee, seat, order, price, the QR
 * code of the secret and the secret — over the whole page: the event at the top, a large QR code
 * in the middle (80 mm square at 65 mm, 125 mm), the holder below it.
 */

const GREY = [80, 80, 80, 1];

/** A text element of the layout (pretix format; `downward`: `bottom` is the top of its first line). */
function text(
  content: string,
  at: { left: number; top: number; width: number },
  style: { size: number; bold?: boolean; color?: number[]; align?: "left" | "center" },
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    type: "textarea",
    left: at.left,
    bottom: at.top,
    width: at.width,
    fontsize: style.size,
    lineheight: 1,
    bold: style.bold ?? false,
    italic: false,
    align: style.align ?? "left",
    color: style.color ?? [0, 0, 0, 1],
    content,
    downward: true,
    ...extra,
  };
}

/** The layout of tickets when the event has none (pretix format, A4 portrait). */
export const DEFAULT_LAYOUT: Record<string, unknown>[] = [
  // the event: its name (shrunk to fit two lines), when (with the time zone) and where
  {
    type: "textcontainer",
    left: 15,
    bottom: 256,
    width: 180,
    height: 26,
    fontsize: 26,
    lineheight: 1,
    bold: true,
    italic: false,
    align: "left",
    verticalalign: "top",
    autoresize: true,
    color: [0, 0, 0, 1],
    content: "event_name",
  },
  text("other", { left: 15, top: 250, width: 180 }, { size: 14 }, { text: "{event_begin} ({event_timezone})" }),
  text("event_location", { left: 15, top: 242, width: 180 }, { size: 14 }),
  // the QR code of the secret, in the middle of the page, and the secret for reading out
  { type: "barcodearea", left: 65, bottom: 125, size: 80, content: "secret" },
  text("secret", { left: 30, top: 122, width: 150 }, { size: 8, color: GREY, align: "center" }),
  // whose ticket it is and for what
  text("attendee_name", { left: 15, top: 108, width: 180 }, { size: 20, bold: true, align: "center" }),
  text("itemvar", { left: 15, top: 98, width: 180 }, { size: 14, align: "center" }),
  text("seat", { left: 15, top: 89, width: 180 }, { size: 13, bold: true, align: "center" }),
  text(
    "other",
    { left: 15, top: 80, width: 180 },
    { size: 11, color: GREY, align: "center" },
    { text: "Order {order_positionid} · {price}" },
  ),
  text(
    "other",
    { left: 25, top: 55, width: 160 },
    { size: 10, color: GREY, align: "center" },
    { text: "Show this ticket at the entrance, printed or on your phone." },
  ),
  text("organizer", { left: 15, top: 20, width: 180 }, { size: 9, color: GREY }),
];
