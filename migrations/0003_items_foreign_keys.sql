PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`category_id` integer,
	`name` text NOT NULL,
	`internal_name` text,
	`default_price` integer NOT NULL,
	`original_price` integer,
	`tax_rule_id` integer,
	`active` integer DEFAULT true NOT NULL,
	`description` text,
	`free_price` integer DEFAULT false NOT NULL,
	`admission` integer DEFAULT false NOT NULL,
	`personalized` integer DEFAULT false NOT NULL,
	`issue_giftcard` integer DEFAULT false NOT NULL,
	`checkin_attention` integer DEFAULT false NOT NULL,
	`require_approval` integer DEFAULT false NOT NULL,
	`require_bundling` integer DEFAULT false NOT NULL,
	`generate_tickets` integer,
	`allow_waitinglist` integer DEFAULT true NOT NULL,
	`show_quota_left` integer,
	`allow_cancel` integer DEFAULT true NOT NULL,
	`require_voucher` integer DEFAULT false NOT NULL,
	`hide_without_voucher` integer DEFAULT false NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`picture` text,
	`sales_channels` text NOT NULL,
	`available_from` integer,
	`available_until` integer,
	`hidden_if_available_id` integer,
	`min_per_order` integer,
	`max_per_order` integer,
	`require_membership` integer DEFAULT false NOT NULL,
	`require_membership_hidden` integer DEFAULT false NOT NULL,
	`grant_membership_type_id` integer,
	`grant_membership_duration_like_event` integer DEFAULT true NOT NULL,
	`grant_membership_duration_days` integer DEFAULT 0 NOT NULL,
	`grant_membership_duration_months` integer DEFAULT 0 NOT NULL,
	`validity_mode` text,
	`validity_fixed_from` integer,
	`validity_fixed_until` integer,
	`validity_dynamic_duration_minutes` integer,
	`validity_dynamic_duration_hours` integer,
	`validity_dynamic_duration_days` integer,
	`validity_dynamic_duration_months` integer,
	`validity_dynamic_start_choice` integer DEFAULT false NOT NULL,
	`validity_dynamic_start_choice_day_limit` integer,
	`has_variations` integer DEFAULT false NOT NULL,
	`meta_data` text NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`category_id`) REFERENCES `item_categories`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`tax_rule_id`) REFERENCES `tax_rules`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`hidden_if_available_id`) REFERENCES `quotas`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`grant_membership_type_id`) REFERENCES `membership_types`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
INSERT INTO `__new_items`("id", "event_id", "category_id", "name", "internal_name", "default_price", "original_price", "tax_rule_id", "active", "description", "free_price", "admission", "personalized", "issue_giftcard", "checkin_attention", "require_approval", "require_bundling", "generate_tickets", "allow_waitinglist", "show_quota_left", "allow_cancel", "require_voucher", "hide_without_voucher", "position", "picture", "sales_channels", "available_from", "available_until", "hidden_if_available_id", "min_per_order", "max_per_order", "require_membership", "require_membership_hidden", "grant_membership_type_id", "grant_membership_duration_like_event", "grant_membership_duration_days", "grant_membership_duration_months", "validity_mode", "validity_fixed_from", "validity_fixed_until", "validity_dynamic_duration_minutes", "validity_dynamic_duration_hours", "validity_dynamic_duration_days", "validity_dynamic_duration_months", "validity_dynamic_start_choice", "validity_dynamic_start_choice_day_limit", "has_variations", "meta_data") SELECT "id", "event_id", "category_id", "name", "internal_name", "default_price", "original_price", "tax_rule_id", "active", "description", "free_price", "admission", "personalized", "issue_giftcard", "checkin_attention", "require_approval", "require_bundling", "generate_tickets", "allow_waitinglist", "show_quota_left", "allow_cancel", "require_voucher", "hide_without_voucher", "position", "picture", "sales_channels", "available_from", "available_until", "hidden_if_available_id", "min_per_order", "max_per_order", "require_membership", "require_membership_hidden", "grant_membership_type_id", "grant_membership_duration_like_event", "grant_membership_duration_days", "grant_membership_duration_months", "validity_mode", "validity_fixed_from", "validity_fixed_until", "validity_dynamic_duration_minutes", "validity_dynamic_duration_hours", "validity_dynamic_duration_days", "validity_dynamic_duration_months", "validity_dynamic_start_choice", "validity_dynamic_start_choice_day_limit", "has_variations", "meta_data" FROM `items`;--> statement-breakpoint
DROP TABLE `items`;--> statement-breakpoint
ALTER TABLE `__new_items` RENAME TO `items`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `items_event_idx` ON `items` (`event_id`,`position`);--> statement-breakpoint
CREATE INDEX `items_category_idx` ON `items` (`category_id`);--> statement-breakpoint
CREATE INDEX `items_tax_rule_idx` ON `items` (`tax_rule_id`);--> statement-breakpoint
CREATE INDEX `items_grant_membership_type_idx` ON `items` (`grant_membership_type_id`);--> statement-breakpoint
CREATE INDEX `items_hidden_if_available_idx` ON `items` (`hidden_if_available_id`);