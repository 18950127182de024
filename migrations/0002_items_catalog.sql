CREATE TABLE `item_addons` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`item_id` integer NOT NULL,
	`addon_category_id` integer NOT NULL,
	`min_count` integer DEFAULT 0 NOT NULL,
	`max_count` integer DEFAULT 1 NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`price_included` integer DEFAULT false NOT NULL,
	`multi_allowed` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`addon_category_id`) REFERENCES `item_categories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `item_addons_item_category_uq` ON `item_addons` (`item_id`,`addon_category_id`);--> statement-breakpoint
CREATE INDEX `item_addons_category_idx` ON `item_addons` (`addon_category_id`);--> statement-breakpoint
CREATE TABLE `item_bundles` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`item_id` integer NOT NULL,
	`bundled_item_id` integer NOT NULL,
	`bundled_variation_id` integer,
	`count` integer DEFAULT 1 NOT NULL,
	`designated_price` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bundled_item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bundled_variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `item_bundles_item_idx` ON `item_bundles` (`item_id`);--> statement-breakpoint
CREATE INDEX `item_bundles_bundled_item_idx` ON `item_bundles` (`bundled_item_id`);--> statement-breakpoint
CREATE INDEX `item_bundles_bundled_variation_idx` ON `item_bundles` (`bundled_variation_id`);--> statement-breakpoint
CREATE TABLE `item_membership_types` (
	`item_id` integer NOT NULL,
	`membership_type_id` integer NOT NULL,
	PRIMARY KEY(`item_id`, `membership_type_id`),
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`membership_type_id`) REFERENCES `membership_types`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `item_membership_types_type_idx` ON `item_membership_types` (`membership_type_id`);--> statement-breakpoint
CREATE TABLE `variation_membership_types` (
	`variation_id` integer NOT NULL,
	`membership_type_id` integer NOT NULL,
	PRIMARY KEY(`variation_id`, `membership_type_id`),
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`membership_type_id`) REFERENCES `membership_types`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `variation_membership_types_type_idx` ON `variation_membership_types` (`membership_type_id`);--> statement-breakpoint
DROP INDEX `item_categories_event_idx`;--> statement-breakpoint
ALTER TABLE `item_categories` ADD `internal_name` text;--> statement-breakpoint
ALTER TABLE `item_categories` ADD `description` text;--> statement-breakpoint
CREATE INDEX `item_categories_event_idx` ON `item_categories` (`event_id`,`position`);--> statement-breakpoint
DROP INDEX `item_variations_item_idx`;--> statement-breakpoint
ALTER TABLE `item_variations` ADD `original_price` integer;--> statement-breakpoint
ALTER TABLE `item_variations` ADD `description` text;--> statement-breakpoint
ALTER TABLE `item_variations` ADD `checkin_attention` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `item_variations` ADD `require_approval` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `item_variations` ADD `require_membership` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `item_variations` ADD `require_membership_hidden` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `item_variations` ADD `hide_without_voucher` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `item_variations` ADD `sales_channels` text NOT NULL;--> statement-breakpoint
ALTER TABLE `item_variations` ADD `available_from` integer;--> statement-breakpoint
ALTER TABLE `item_variations` ADD `available_until` integer;--> statement-breakpoint
ALTER TABLE `item_variations` ADD `meta_data` text NOT NULL;--> statement-breakpoint
CREATE INDEX `item_variations_item_idx` ON `item_variations` (`item_id`,`position`);--> statement-breakpoint
DROP INDEX `items_event_idx`;--> statement-breakpoint
ALTER TABLE `items` ADD `internal_name` text;--> statement-breakpoint
ALTER TABLE `items` ADD `original_price` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `description` text;--> statement-breakpoint
ALTER TABLE `items` ADD `free_price` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `personalized` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `issue_giftcard` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `checkin_attention` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `require_approval` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `require_bundling` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `generate_tickets` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `allow_waitinglist` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `show_quota_left` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `allow_cancel` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `require_voucher` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `hide_without_voucher` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `picture` text;--> statement-breakpoint
ALTER TABLE `items` ADD `sales_channels` text NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `available_from` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `available_until` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `hidden_if_available_id` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `min_per_order` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `max_per_order` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `require_membership` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `require_membership_hidden` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `grant_membership_type_id` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `grant_membership_duration_like_event` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `grant_membership_duration_days` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `grant_membership_duration_months` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `validity_mode` text;--> statement-breakpoint
ALTER TABLE `items` ADD `validity_fixed_from` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `validity_fixed_until` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `validity_dynamic_duration_minutes` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `validity_dynamic_duration_hours` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `validity_dynamic_duration_days` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `validity_dynamic_duration_months` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `validity_dynamic_start_choice` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `items` ADD `validity_dynamic_start_choice_day_limit` integer;--> statement-breakpoint
ALTER TABLE `items` ADD `meta_data` text NOT NULL;--> statement-breakpoint
CREATE INDEX `items_category_idx` ON `items` (`category_id`);--> statement-breakpoint
CREATE INDEX `items_tax_rule_idx` ON `items` (`tax_rule_id`);--> statement-breakpoint
CREATE INDEX `items_grant_membership_type_idx` ON `items` (`grant_membership_type_id`);--> statement-breakpoint
CREATE INDEX `items_hidden_if_available_idx` ON `items` (`hidden_if_available_id`);--> statement-breakpoint
CREATE INDEX `items_event_idx` ON `items` (`event_id`,`position`);