CREATE TABLE `order_refunds` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`local_id` integer NOT NULL,
	`payment_id` integer,
	`state` text NOT NULL,
	`source` text NOT NULL,
	`amount` integer NOT NULL,
	`provider` text NOT NULL,
	`created` integer NOT NULL,
	`execution_date` integer,
	`comment` text,
	`reference` text,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`payment_id`) REFERENCES `order_payments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `order_refunds_order_local_uq` ON `order_refunds` (`order_id`,`local_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `order_refunds_reference_uq` ON `order_refunds` (`provider`,`reference`);--> statement-breakpoint
CREATE INDEX `order_refunds_payment_idx` ON `order_refunds` (`payment_id`);--> statement-breakpoint
CREATE TABLE `stripe_events` (
	`organizer_id` integer NOT NULL,
	`event_id` text NOT NULL,
	`type` text NOT NULL,
	`claim` text NOT NULL,
	`received` integer NOT NULL,
	PRIMARY KEY(`organizer_id`, `event_id`),
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `stripe_objects` (
	`organizer_id` integer NOT NULL,
	`reference` text NOT NULL,
	`payment_id` integer NOT NULL,
	`created` integer NOT NULL,
	PRIMARY KEY(`organizer_id`, `reference`),
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`payment_id`) REFERENCES `order_payments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `stripe_objects_payment_idx` ON `stripe_objects` (`payment_id`);