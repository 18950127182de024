CREATE TABLE `waitinglist_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`subevent_id` integer,
	`item_id` integer NOT NULL,
	`variation_id` integer,
	`email` text NOT NULL,
	`name_cached` text,
	`name_parts` text DEFAULT '{}' NOT NULL,
	`phone` text,
	`locale` text DEFAULT 'en' NOT NULL,
	`priority` integer DEFAULT 0 NOT NULL,
	`voucher_id` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`voucher_id`) REFERENCES `vouchers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `waitinglist_event_waiting_idx` ON `waitinglist_entries` (`event_id`,`voucher_id`,`priority`,`created_at`);--> statement-breakpoint
CREATE INDEX `waitinglist_event_created_idx` ON `waitinglist_entries` (`event_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `waitinglist_voucher_idx` ON `waitinglist_entries` (`voucher_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `waitinglist_waiting_uq` ON `waitinglist_entries` (`event_id`,`item_id`,coalesce("variation_id", 0),coalesce("subevent_id", 0),lower("email")) WHERE "waitinglist_entries"."voucher_id" IS NULL;