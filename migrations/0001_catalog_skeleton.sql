CREATE TABLE `subevents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`name` text NOT NULL,
	`active` integer DEFAULT false NOT NULL,
	`date_from` integer NOT NULL,
	`date_to` integer,
	`seating_plan_id` integer,
	`last_modified` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `subevents_event_date_idx` ON `subevents` (`event_id`,`date_from`);--> statement-breakpoint
CREATE TABLE `questions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`question` text NOT NULL,
	`type` text NOT NULL,
	`required` integer DEFAULT false NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `questions_event_idx` ON `questions` (`event_id`);--> statement-breakpoint
CREATE TABLE `seating_plans` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`name` text NOT NULL,
	`layout` text NOT NULL,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `seating_plans_organizer_idx` ON `seating_plans` (`organizer_id`);--> statement-breakpoint
CREATE TABLE `tax_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`name` text NOT NULL,
	`rate` integer NOT NULL,
	`price_includes_tax` integer DEFAULT true NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tax_rules_event_idx` ON `tax_rules` (`event_id`);--> statement-breakpoint
CREATE TABLE `item_categories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`name` text NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`is_addon` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `item_categories_event_idx` ON `item_categories` (`event_id`);--> statement-breakpoint
CREATE TABLE `item_variations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`item_id` integer NOT NULL,
	`value` text NOT NULL,
	`default_price` integer,
	`active` integer DEFAULT true NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `item_variations_item_idx` ON `item_variations` (`item_id`);--> statement-breakpoint
CREATE TABLE `items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`category_id` integer,
	`name` text NOT NULL,
	`default_price` integer DEFAULT 0 NOT NULL,
	`tax_rule_id` integer,
	`active` integer DEFAULT true NOT NULL,
	`admission` integer DEFAULT false NOT NULL,
	`has_variations` integer DEFAULT false NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`category_id`) REFERENCES `item_categories`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`tax_rule_id`) REFERENCES `tax_rules`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE INDEX `items_event_idx` ON `items` (`event_id`);--> statement-breakpoint
CREATE TABLE `membership_types` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`name` text NOT NULL,
	`transferable` integer DEFAULT false NOT NULL,
	`allow_parallel_usage` integer DEFAULT false NOT NULL,
	`max_usages` integer,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `membership_types_organizer_idx` ON `membership_types` (`organizer_id`);--> statement-breakpoint
CREATE TABLE `customers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`identifier` text NOT NULL,
	`email` text,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_identifier_unique` ON `customers` (`identifier`);--> statement-breakpoint
CREATE INDEX `customers_organizer_idx` ON `customers` (`organizer_id`);--> statement-breakpoint
CREATE TABLE `order_positions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`positionid` integer NOT NULL,
	`item_id` integer NOT NULL,
	`variation_id` integer,
	`subevent_id` integer,
	`tax_rule_id` integer,
	`canceled` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`tax_rule_id`) REFERENCES `tax_rules`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE INDEX `order_positions_order_idx` ON `order_positions` (`order_id`);--> statement-breakpoint
CREATE INDEX `order_positions_item_idx` ON `order_positions` (`item_id`);--> statement-breakpoint
CREATE TABLE `orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`code` text NOT NULL,
	`status` text NOT NULL,
	`datetime` integer NOT NULL,
	`customer_id` integer,
	`last_modified` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `orders_event_idx` ON `orders` (`event_id`);--> statement-breakpoint
CREATE TABLE `quota_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`quota_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`variation_id` integer,
	FOREIGN KEY (`quota_id`) REFERENCES `quotas`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `quota_items_quota_idx` ON `quota_items` (`quota_id`);--> statement-breakpoint
CREATE INDEX `quota_items_item_idx` ON `quota_items` (`item_id`);--> statement-breakpoint
CREATE TABLE `quotas` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`subevent_id` integer,
	`name` text NOT NULL,
	`size` integer,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `quotas_event_idx` ON `quotas` (`event_id`);