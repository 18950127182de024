CREATE TABLE `checkin_list_items` (
	`list_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	PRIMARY KEY(`list_id`, `item_id`),
	FOREIGN KEY (`list_id`) REFERENCES `checkin_lists`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `checkin_list_items_item_idx` ON `checkin_list_items` (`item_id`);--> statement-breakpoint
CREATE TABLE `checkin_lists` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`name` text NOT NULL,
	`all_products` integer DEFAULT false NOT NULL,
	`subevent_id` integer,
	`include_pending` integer DEFAULT false NOT NULL,
	`allow_multiple_entries` integer DEFAULT false NOT NULL,
	`allow_entry_after_exit` integer DEFAULT true NOT NULL,
	`addon_match` integer DEFAULT false NOT NULL,
	`rules` text NOT NULL,
	`exit_all_at` integer,
	`auto_checkin_sales_channels` text NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `checkin_lists_event_idx` ON `checkin_lists` (`event_id`,`subevent_id`);--> statement-breakpoint
CREATE TABLE `checkins` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uid` text NOT NULL,
	`event_id` integer NOT NULL,
	`list_id` integer NOT NULL,
	`position_id` integer,
	`type` text NOT NULL,
	`datetime` integer NOT NULL,
	`created` integer NOT NULL,
	`successful` integer DEFAULT true NOT NULL,
	`error_reason` text,
	`error_explanation` text,
	`auto_checked_in` integer DEFAULT false NOT NULL,
	`forced` integer DEFAULT false NOT NULL,
	`device_id` integer,
	`nonce` text,
	`raw_barcode` text,
	`raw_source_type` text,
	`raw_item` integer,
	`raw_variation` integer,
	`raw_subevent` integer,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`list_id`) REFERENCES `checkin_lists`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `checkins_uid_unique` ON `checkins` (`uid`);--> statement-breakpoint
CREATE INDEX `checkins_position_idx` ON `checkins` (`position_id`,`list_id`);--> statement-breakpoint
CREATE INDEX `checkins_list_idx` ON `checkins` (`list_id`,`successful`);--> statement-breakpoint
CREATE INDEX `checkins_event_idx` ON `checkins` (`event_id`,`created`);--> statement-breakpoint
ALTER TABLE `order_positions` ADD `valid_from` integer;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `valid_until` integer;