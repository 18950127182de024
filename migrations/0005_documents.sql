CREATE TABLE `invoice_counters` (
	`organizer_id` integer NOT NULL,
	`prefix` text NOT NULL,
	`last` integer NOT NULL,
	PRIMARY KEY(`organizer_id`, `prefix`),
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `invoices` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	`order_id` integer NOT NULL,
	`prefix` text NOT NULL,
	`invoice_no` text NOT NULL,
	`number` text NOT NULL,
	`is_cancellation` integer DEFAULT false NOT NULL,
	`refers_id` integer,
	`date` text NOT NULL,
	`locale` text NOT NULL,
	`texts` text NOT NULL,
	`lines` text NOT NULL,
	`creation_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`file` text,
	`file_error` text,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`refers_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_organizer_number_uq` ON `invoices` (`organizer_id`,`prefix`,`invoice_no`);--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_creation_key_uq` ON `invoices` (`creation_key`);--> statement-breakpoint
CREATE INDEX `invoices_event_number_idx` ON `invoices` (`event_id`,`number`);--> statement-breakpoint
CREATE INDEX `invoices_event_date_idx` ON `invoices` (`event_id`,`date`);--> statement-breakpoint
CREATE INDEX `invoices_order_idx` ON `invoices` (`order_id`);--> statement-breakpoint
CREATE INDEX `invoices_refers_idx` ON `invoices` (`refers_id`);--> statement-breakpoint
CREATE INDEX `invoices_file_idx` ON `invoices` (`file`);--> statement-breakpoint
CREATE TABLE `sweep_marks` (
	`name` text PRIMARY KEY NOT NULL,
	`until` integer NOT NULL
);
