CREATE TABLE `blocked_secrets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`position_id` integer NOT NULL,
	`secret` text NOT NULL,
	`blocked` integer NOT NULL,
	`updated` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`position_id`) REFERENCES `order_positions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `blocked_secrets_event_secret_uq` ON `blocked_secrets` (`event_id`,`secret`);--> statement-breakpoint
CREATE INDEX `blocked_secrets_event_updated_idx` ON `blocked_secrets` (`event_id`,`updated`);--> statement-breakpoint
CREATE TABLE `revoked_secrets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`position_id` integer NOT NULL,
	`secret` text NOT NULL,
	`created` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`position_id`) REFERENCES `order_positions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `revoked_secrets_event_secret_uq` ON `revoked_secrets` (`event_id`,`secret`);--> statement-breakpoint
CREATE INDEX `revoked_secrets_event_created_idx` ON `revoked_secrets` (`event_id`,`created`);--> statement-breakpoint
CREATE TABLE `ticket_signing_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`scheme` text NOT NULL,
	`public_key` text NOT NULL,
	`private_key_sealed` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_signing_keys_event_scheme_uq` ON `ticket_signing_keys` (`event_id`,`scheme`);--> statement-breakpoint
ALTER TABLE `order_positions` ADD `blocked` text;--> statement-breakpoint
ALTER TABLE `checkins` ADD `force_sent` integer DEFAULT false NOT NULL;