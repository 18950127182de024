CREATE TABLE `event_meta_properties` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`name` text NOT NULL,
	`default_value` text DEFAULT '' NOT NULL,
	`required` integer DEFAULT false NOT NULL,
	`protected` integer DEFAULT false NOT NULL,
	`filter_public` integer DEFAULT false NOT NULL,
	`public_label` text,
	`filter_allowed` integer DEFAULT true NOT NULL,
	`choices` text,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `event_meta_properties_organizer_name_uq` ON `event_meta_properties` (`organizer_id`,`name`);--> statement-breakpoint
CREATE TABLE `event_meta_values` (
	`event_id` integer NOT NULL,
	`property_id` integer NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`event_id`, `property_id`),
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`property_id`) REFERENCES `event_meta_properties`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `event_meta_values_property_idx` ON `event_meta_values` (`property_id`);--> statement-breakpoint
CREATE TABLE `event_settings` (
	`event_id` integer NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`event_id`, `key`),
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `subevent_item_variations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subevent_id` integer NOT NULL,
	`variation_id` integer NOT NULL,
	`price` integer,
	`disabled` integer DEFAULT false NOT NULL,
	`available_from` integer,
	`available_until` integer,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subevent_item_variations_uq` ON `subevent_item_variations` (`subevent_id`,`variation_id`);--> statement-breakpoint
CREATE INDEX `subevent_item_variations_variation_idx` ON `subevent_item_variations` (`variation_id`);--> statement-breakpoint
CREATE TABLE `subevent_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subevent_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`price` integer,
	`disabled` integer DEFAULT false NOT NULL,
	`available_from` integer,
	`available_until` integer,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subevent_items_uq` ON `subevent_items` (`subevent_id`,`item_id`);--> statement-breakpoint
CREATE INDEX `subevent_items_item_idx` ON `subevent_items` (`item_id`);--> statement-breakpoint
CREATE TABLE `subevent_meta_values` (
	`subevent_id` integer NOT NULL,
	`property_id` integer NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`subevent_id`, `property_id`),
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`property_id`) REFERENCES `event_meta_properties`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `subevent_meta_values_property_idx` ON `subevent_meta_values` (`property_id`);--> statement-breakpoint
ALTER TABLE `subevents` ADD `is_public` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `subevents` ADD `date_admission` integer;--> statement-breakpoint
ALTER TABLE `subevents` ADD `presale_start` integer;--> statement-breakpoint
ALTER TABLE `subevents` ADD `presale_end` integer;--> statement-breakpoint
ALTER TABLE `subevents` ADD `location` text;--> statement-breakpoint
ALTER TABLE `subevents` ADD `frontpage_text` text;--> statement-breakpoint
ALTER TABLE `subevents` ADD `geo_lat` real;--> statement-breakpoint
ALTER TABLE `subevents` ADD `geo_lon` real;--> statement-breakpoint
ALTER TABLE `subevents` ADD `seat_category_mapping` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
CREATE INDEX `subevents_event_modified_idx` ON `subevents` (`event_id`,`last_modified`);