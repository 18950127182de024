CREATE TABLE `discount_items` (
	`discount_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	PRIMARY KEY(`discount_id`, `item_id`),
	FOREIGN KEY (`discount_id`) REFERENCES `discounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `discount_items_item_idx` ON `discount_items` (`item_id`);--> statement-breakpoint
CREATE TABLE `discounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`internal_name` text NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`sales_channels` text NOT NULL,
	`available_from` integer,
	`available_until` integer,
	`subevent_mode` text DEFAULT 'mixed' NOT NULL,
	`condition_all_products` integer DEFAULT true NOT NULL,
	`condition_apply_to_addons` integer DEFAULT true NOT NULL,
	`condition_ignore_voucher_discounted` integer DEFAULT false NOT NULL,
	`condition_min_count` integer DEFAULT 0 NOT NULL,
	`condition_min_value` integer DEFAULT 0 NOT NULL,
	`benefit_discount_matching_percent` integer DEFAULT 0 NOT NULL,
	`benefit_only_apply_to_cheapest_n_matches` integer,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `discounts_event_idx` ON `discounts` (`event_id`,`position`);--> statement-breakpoint
CREATE TABLE `question_items` (
	`question_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	PRIMARY KEY(`question_id`, `item_id`),
	FOREIGN KEY (`question_id`) REFERENCES `questions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `question_items_item_idx` ON `question_items` (`item_id`);--> statement-breakpoint
CREATE TABLE `question_options` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`question_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	`identifier` text NOT NULL,
	`answer` text NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`question_id`) REFERENCES `questions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `question_options_question_idx` ON `question_options` (`question_id`,`position`);--> statement-breakpoint
CREATE UNIQUE INDEX `question_options_event_identifier_uq` ON `question_options` (`event_id`,`identifier`);--> statement-breakpoint
CREATE TABLE `seating_plan_seats` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`plan_id` integer NOT NULL,
	`seat_guid` text NOT NULL,
	`zone_name` text DEFAULT '' NOT NULL,
	`row_name` text DEFAULT '' NOT NULL,
	`row_label` text,
	`seat_number` text DEFAULT '' NOT NULL,
	`seat_label` text,
	`category` text NOT NULL,
	`sorting_rank` integer DEFAULT 0 NOT NULL,
	`x` real,
	`y` real,
	FOREIGN KEY (`plan_id`) REFERENCES `seating_plans`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `seating_plan_seats_guid_uq` ON `seating_plan_seats` (`plan_id`,`seat_guid`);--> statement-breakpoint
CREATE INDEX `seating_plan_seats_rank_idx` ON `seating_plan_seats` (`plan_id`,`sorting_rank`);--> statement-breakpoint
CREATE TABLE `sendmail_rule_items` (
	`rule_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	PRIMARY KEY(`rule_id`, `item_id`),
	FOREIGN KEY (`rule_id`) REFERENCES `sendmail_rules`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sendmail_rule_items_item_idx` ON `sendmail_rule_items` (`item_id`);--> statement-breakpoint
CREATE TABLE `sendmail_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`subject` text NOT NULL,
	`template` text NOT NULL,
	`all_products` integer DEFAULT true NOT NULL,
	`include_pending` integer DEFAULT false NOT NULL,
	`date_is_absolute` integer DEFAULT true NOT NULL,
	`send_date` integer,
	`send_offset_days` integer,
	`send_offset_time` text,
	`offset_to_event_end` integer DEFAULT false NOT NULL,
	`offset_is_after` integer DEFAULT false NOT NULL,
	`send_to` text DEFAULT 'orders' NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sendmail_rules_event_idx` ON `sendmail_rules` (`event_id`);--> statement-breakpoint
CREATE TABLE `ticket_layout_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`layout_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`sales_channel` text DEFAULT 'web' NOT NULL,
	FOREIGN KEY (`layout_id`) REFERENCES `ticket_layouts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_layout_items_item_channel_uq` ON `ticket_layout_items` (`item_id`,`sales_channel`);--> statement-breakpoint
CREATE INDEX `ticket_layout_items_layout_idx` ON `ticket_layout_items` (`layout_id`);--> statement-breakpoint
CREATE TABLE `ticket_layouts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`name` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`layout` text NOT NULL,
	`background` text,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ticket_layouts_event_idx` ON `ticket_layouts` (`event_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_layouts_one_default_uq` ON `ticket_layouts` (`event_id`) WHERE is_default = 1;--> statement-breakpoint
DROP INDEX `questions_event_idx`;--> statement-breakpoint
ALTER TABLE `questions` ADD `help_text` text;--> statement-breakpoint
ALTER TABLE `questions` ADD `identifier` text NOT NULL;--> statement-breakpoint
ALTER TABLE `questions` ADD `ask_during_checkin` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `questions` ADD `hidden` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `questions` ADD `print_on_invoice` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `questions` ADD `valid_number_min` text;--> statement-breakpoint
ALTER TABLE `questions` ADD `valid_number_max` text;--> statement-breakpoint
ALTER TABLE `questions` ADD `valid_date_min` text;--> statement-breakpoint
ALTER TABLE `questions` ADD `valid_date_max` text;--> statement-breakpoint
ALTER TABLE `questions` ADD `valid_datetime_min` integer;--> statement-breakpoint
ALTER TABLE `questions` ADD `valid_datetime_max` integer;--> statement-breakpoint
ALTER TABLE `questions` ADD `valid_file_portrait` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `questions` ADD `dependency_question_id` integer REFERENCES questions(id);--> statement-breakpoint
ALTER TABLE `questions` ADD `dependency_values` text NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `questions_event_identifier_uq` ON `questions` (`event_id`,`identifier`);--> statement-breakpoint
CREATE INDEX `questions_dependency_idx` ON `questions` (`dependency_question_id`);--> statement-breakpoint
CREATE INDEX `questions_event_idx` ON `questions` (`event_id`,`position`);--> statement-breakpoint
DROP INDEX `seating_plans_organizer_idx`;--> statement-breakpoint
CREATE INDEX `seating_plans_organizer_idx` ON `seating_plans` (`organizer_id`,`name`);--> statement-breakpoint
ALTER TABLE `tax_rules` ADD `internal_name` text;--> statement-breakpoint
ALTER TABLE `tax_rules` ADD `eu_reverse_charge` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `tax_rules` ADD `home_country` text;--> statement-breakpoint
ALTER TABLE `tax_rules` ADD `keep_gross_if_rate_changes` integer DEFAULT false NOT NULL;