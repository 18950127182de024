/**
 * Every exporter the service offers (docs/api.md), in pretix's order of the list (by verbose
 * name). Each is in its own file, with pretix's identifier, name, inputs and columns as far as
 * the service holds the data.
 */
import type { ExporterDef } from "../exporter";
import { checkinlist } from "./checkinlist";
import { customerlist } from "./customerlist";
import { giftcardlist } from "./giftcardlist";
import { invoicedata } from "./invoicedata";
import { jsonExporter } from "./json";
import { orderlist } from "./orderlist";

export const EXPORTERS: readonly ExporterDef[] = [
  checkinlist,
  customerlist,
  giftcardlist,
  invoicedata,
  orderlist,
  jsonExporter,
];
