CREATE TABLE `export_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`organizer_id` integer NOT NULL,
	`event_id` integer,
	`owner` text NOT NULL,
	`identifier` text NOT NULL,
	`params` text NOT NULL,
	`state` text DEFAULT 'waiting' NOT NULL,
	`percentage` integer,
	`message` text,
	`step` integer DEFAULT 0 NOT NULL,
	`cursor` text,
	`lease_until` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	`filename` text,
	`content_type` text,
	`storage_key` text,
	`size` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `export_jobs_owner_state_idx` ON `export_jobs` (`owner`,`state`);--> statement-breakpoint
CREATE INDEX `export_jobs_state_updated_idx` ON `export_jobs` (`state`,`updated_at`);--> statement-breakpoint
CREATE INDEX `export_jobs_expires_idx` ON `export_jobs` (`expires_at`);--> statement-breakpoint
CREATE TABLE `sendmail_rule_done` (
	`rule_id` integer NOT NULL,
	`subevent_id` integer DEFAULT 0 NOT NULL,
	`send_at` integer NOT NULL,
	`completed_at` integer NOT NULL,
	PRIMARY KEY(`rule_id`, `subevent_id`),
	FOREIGN KEY (`rule_id`) REFERENCES `sendmail_rules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `sendmail_rule_sends` (
	`rule_id` integer NOT NULL,
	`subevent_id` integer DEFAULT 0 NOT NULL,
	`order_id` integer NOT NULL,
	`position_id` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`rule_id`, `subevent_id`, `order_id`, `position_id`),
	FOREIGN KEY (`rule_id`) REFERENCES `sendmail_rules`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sendmail_rule_sends_order_idx` ON `sendmail_rule_sends` (`order_id`);