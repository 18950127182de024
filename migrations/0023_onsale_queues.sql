CREATE TABLE `onsale_queues` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	`subevent_id` integer,
	`active` integer DEFAULT true NOT NULL,
	`opens_at` integer NOT NULL,
	`arrival_order` text DEFAULT 'shuffle' NOT NULL,
	`admissions_per_minute` integer NOT NULL,
	`admission_minutes` integer DEFAULT 15 NOT NULL,
	`orders_per_admission` integer DEFAULT 1 NOT NULL,
	`bypass_sales_channels` text NOT NULL,
	`bypass_devices` integer DEFAULT true NOT NULL,
	`bypass_teams` text NOT NULL,
	`secret_version` integer DEFAULT 1 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `onsale_queues_event_subevent_uq` ON `onsale_queues` (`event_id`,`subevent_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `onsale_queues_event_wide_uq` ON `onsale_queues` (`event_id`) WHERE "onsale_queues"."subevent_id" IS NULL;--> statement-breakpoint
CREATE INDEX `onsale_queues_subevent_idx` ON `onsale_queues` (`subevent_id`);--> statement-breakpoint
CREATE INDEX `onsale_queues_organizer_idx` ON `onsale_queues` (`organizer_id`);