/**
 * What the catalog's routes read: the lists and single rows of categories, discounts, items and
 * their variations, questions and their options, quotas, tax rules, vouchers and seating plans,
 * scoped by the context (services/scoped-reads.ts), with the row types and list orderings the
 * routes serialize and describe.
 */
import * as categories from "../../db/categories";
import * as discounts from "../../db/discounts";
import * as items from "../../db/items";
import * as variations from "../../db/item-variations";
import * as questions from "../../db/questions";
import * as quotas from "../../db/quotas";
import * as taxRules from "../../db/taxrules";
import * as vouchers from "../../db/vouchers";
import * as seatingPlans from "../../db/seatingplans";
import { inEvent, inOrganizer, withDb } from "../scoped-reads";

export type { CategoryRow } from "../../db/categories";
export type { DiscountRecord } from "../../db/discounts";
export type { ItemRecord, ItemRow } from "../../db/items";
export type { VariationRecord } from "../../db/item-variations";
export type { AddonRow, BundleRow } from "../../db/item-addons-bundles";
export type { OptionRow, QuestionRecord } from "../../db/questions";
export type { QuotaRecord } from "../../db/quotas";
export type { TaxRuleRow } from "../../db/taxrules";
export type { VoucherRow } from "../../db/vouchers";
export type { SeatingPlanRow } from "../../db/seatingplans";
export { CATEGORY_ORDERING } from "../../db/categories";
export { DISCOUNT_ORDERING } from "../../db/discounts";
export { ITEM_ORDERING } from "../../db/items";
export { VARIATION_ORDERING } from "../../db/item-variations";
export { QUESTION_ORDERING } from "../../db/questions";
export { QUOTA_ORDERING } from "../../db/quotas";
export { VOUCHER_ORDERING } from "../../db/vouchers";

export const listCategories = inEvent(categories.listCategories);
export const findCategory = inEvent(categories.findCategory);
export const listDiscounts = inEvent(discounts.listDiscounts);
export const listItems = inEvent(items.listItems);
/** An item's variations: the route has loaded the item of the event (`loadItemRow`). */
export const listVariations = withDb(variations.listVariations);
export const listQuestions = inEvent(questions.listQuestions);
export const questionRecordsByIds = inEvent(questions.questionRecordsByIds);
export const listOptions = inEvent(questions.listOptions);
export const listQuotas = inEvent(quotas.listQuotas);
export const findQuota = inEvent(quotas.findQuota);
export const listTaxRules = inEvent(taxRules.listTaxRules);
export const listVouchers = inEvent(vouchers.listVouchers);
export const findVoucher = inEvent(vouchers.findVoucher);
export const listSeatingPlans = inOrganizer(seatingPlans.listSeatingPlans);
