CREATE TABLE `cart_positions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`cart_id` text NOT NULL,
	`hold_key` text NOT NULL,
	`datetime` integer NOT NULL,
	`expires` integer NOT NULL,
	`item_id` integer NOT NULL,
	`variation_id` integer,
	`subevent_id` integer,
	`price` integer NOT NULL,
	`attendee_name_parts` text NOT NULL,
	`attendee_email` text,
	`voucher_id` integer,
	`addon_to` integer,
	`is_bundled` integer DEFAULT false NOT NULL,
	`includes_tax` integer DEFAULT true NOT NULL,
	`seat` text,
	`sales_channel` text DEFAULT 'web' NOT NULL,
	`answers` text NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`voucher_id`) REFERENCES `vouchers`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cart_positions_hold_key_unique` ON `cart_positions` (`hold_key`);--> statement-breakpoint
CREATE INDEX `cart_positions_event_cart_idx` ON `cart_positions` (`event_id`,`cart_id`);--> statement-breakpoint
CREATE INDEX `cart_positions_expires_idx` ON `cart_positions` (`expires`);--> statement-breakpoint
CREATE TABLE `order_fees` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`fee_type` text NOT NULL,
	`value` integer NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`internal_type` text DEFAULT '' NOT NULL,
	`tax_rate` integer DEFAULT 0 NOT NULL,
	`tax_value` integer DEFAULT 0 NOT NULL,
	`tax_rule_id` integer,
	`canceled` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tax_rule_id`) REFERENCES `tax_rules`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE INDEX `order_fees_order_idx` ON `order_fees` (`order_id`);--> statement-breakpoint
CREATE INDEX `order_fees_tax_rule_idx` ON `order_fees` (`tax_rule_id`);--> statement-breakpoint
CREATE TABLE `order_payments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`local_id` integer NOT NULL,
	`state` text NOT NULL,
	`amount` integer NOT NULL,
	`provider` text NOT NULL,
	`created` integer NOT NULL,
	`payment_date` integer,
	`info` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `order_payments_order_local_uq` ON `order_payments` (`order_id`,`local_id`);--> statement-breakpoint
CREATE TABLE `vouchers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`code` text NOT NULL,
	`max_usages` integer DEFAULT 1 NOT NULL,
	`min_usages` integer DEFAULT 1 NOT NULL,
	`redeemed` integer DEFAULT 0 NOT NULL,
	`valid_until` integer,
	`block_quota` integer DEFAULT false NOT NULL,
	`allow_ignore_quota` integer DEFAULT false NOT NULL,
	`price_mode` text DEFAULT 'none' NOT NULL,
	`value` integer DEFAULT 0 NOT NULL,
	`item_id` integer,
	`variation_id` integer,
	`quota_id` integer,
	`seat` text,
	`tag` text DEFAULT '' NOT NULL,
	`comment` text DEFAULT '' NOT NULL,
	`subevent_id` integer,
	`show_hidden_items` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`quota_id`) REFERENCES `quotas`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vouchers_event_code_uq` ON `vouchers` (`event_id`,`code`);--> statement-breakpoint
CREATE INDEX `vouchers_event_tag_idx` ON `vouchers` (`event_id`,`tag`);--> statement-breakpoint
CREATE INDEX `vouchers_item_idx` ON `vouchers` (`item_id`);--> statement-breakpoint
CREATE INDEX `vouchers_quota_idx` ON `vouchers` (`quota_id`);--> statement-breakpoint
DROP INDEX `order_positions_order_idx`;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `event_id` integer NOT NULL REFERENCES events(id);--> statement-breakpoint
ALTER TABLE `order_positions` ADD `price` integer NOT NULL;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `attendee_name` text;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `attendee_name_parts` text NOT NULL;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `attendee_email` text;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `voucher_id` integer REFERENCES vouchers(id);--> statement-breakpoint
ALTER TABLE `order_positions` ADD `tax_rate` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `tax_value` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `secret` text NOT NULL;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `addon_to` integer;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `is_bundled` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `pseudonymization_id` text NOT NULL;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `seat` text;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `answers` text NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `order_positions_secret_unique` ON `order_positions` (`secret`);--> statement-breakpoint
CREATE UNIQUE INDEX `order_positions_order_positionid_uq` ON `order_positions` (`order_id`,`positionid`);--> statement-breakpoint
CREATE INDEX `order_positions_event_idx` ON `order_positions` (`event_id`,`id`);--> statement-breakpoint
CREATE INDEX `order_positions_variation_idx` ON `order_positions` (`variation_id`);--> statement-breakpoint
CREATE INDEX `order_positions_subevent_idx` ON `order_positions` (`subevent_id`);--> statement-breakpoint
CREATE INDEX `order_positions_voucher_idx` ON `order_positions` (`voucher_id`);--> statement-breakpoint
CREATE INDEX `order_positions_tax_rule_idx` ON `order_positions` (`tax_rule_id`);--> statement-breakpoint
DROP INDEX `orders_event_idx`;--> statement-breakpoint
ALTER TABLE `orders` ADD `testmode` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `secret` text NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `email` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `phone` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `locale` text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `sales_channel` text DEFAULT 'web' NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `expires` integer NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `total` integer NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `comment` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `checkin_attention` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `require_approval` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `invoice_address` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `cancellation_date` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `orders_event_code_uq` ON `orders` (`event_id`,`code`);--> statement-breakpoint
CREATE INDEX `orders_event_datetime_idx` ON `orders` (`event_id`,`datetime`);--> statement-breakpoint
CREATE INDEX `orders_event_modified_idx` ON `orders` (`event_id`,`last_modified`);--> statement-breakpoint
CREATE INDEX `orders_status_expires_idx` ON `orders` (`status`,`expires`);--> statement-breakpoint
CREATE INDEX `orders_customer_idx` ON `orders` (`customer_id`);--> statement-breakpoint
DROP INDEX `quotas_event_idx`;--> statement-breakpoint
ALTER TABLE `quotas` ADD `close_when_sold_out` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `quotas` ADD `closed` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `quotas` ADD `release_after_exit` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `quotas` ADD `ignore_for_event_availability` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `quotas_event_idx` ON `quotas` (`event_id`,`subevent_id`);--> statement-breakpoint
CREATE INDEX `quota_items_variation_idx` ON `quota_items` (`variation_id`);