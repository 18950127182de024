CREATE TABLE `directory_organizers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`slug` text NOT NULL,
	`data_group` integer NOT NULL,
	`moving_to` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `directory_organizers_slug_unique` ON `directory_organizers` (`slug`);