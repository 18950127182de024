CREATE TABLE `webhook_calls` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`webhook_id` integer NOT NULL,
	`organizer_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	`code` text NOT NULL,
	`action_type` text NOT NULL,
	`payload` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`next_attempt_at` integer,
	`last_attempt_at` integer,
	`delivered_at` integer,
	`target_url` text,
	`last_status_code` integer,
	`last_response` text,
	`last_error` text,
	`last_duration_ms` integer,
	`lease_token` text,
	`lease_until` integer,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_calls_sequence_idx` ON `webhook_calls` (`event_id`,`code`,`webhook_id`,`state`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_calls_webhook_idx` ON `webhook_calls` (`webhook_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_calls_due_idx` ON `webhook_calls` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_calls_created_idx` ON `webhook_calls` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`webhook_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	PRIMARY KEY(`webhook_id`, `event_id`),
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_events_event_idx` ON `webhook_events` (`event_id`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`target_url` text NOT NULL,
	`all_events` integer DEFAULT true NOT NULL,
	`action_types` text NOT NULL,
	`comment` text,
	`secret` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhooks_organizer_idx` ON `webhooks` (`organizer_id`,`enabled`);