DROP INDEX `checkins_position_idx`;--> statement-breakpoint
DROP INDEX `checkins_list_idx`;--> statement-breakpoint
CREATE INDEX `checkins_position_idx` ON `checkins` (`position_id`,`list_id`,`successful`,`datetime`);--> statement-breakpoint
CREATE INDEX `checkins_list_idx` ON `checkins` (`list_id`,`successful`,`datetime`,`position_id`);--> statement-breakpoint
ALTER TABLE `order_positions` ADD `order_status` text DEFAULT 'n' NOT NULL;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `sort_name` text;--> statement-breakpoint
CREATE INDEX `order_positions_tickets_idx` ON `order_positions` (`event_id`,`canceled`,`order_status`,`item_id`,`subevent_id`);--> statement-breakpoint
CREATE INDEX `order_positions_named_first_idx` ON `order_positions` (`event_id`,`canceled`,("sort_name" IS NULL),`sort_name`,`positionid`);--> statement-breakpoint
CREATE INDEX `order_positions_sort_name_idx` ON `order_positions` (`event_id`,`canceled`,`sort_name`);--> statement-breakpoint
CREATE INDEX `order_positions_positionid_idx` ON `order_positions` (`event_id`,`canceled`,`positionid`);--> statement-breakpoint
CREATE INDEX `orders_event_status_idx` ON `orders` (`event_id`,`status`);--> statement-breakpoint
CREATE INDEX `orders_event_email_idx` ON `orders` (`event_id`,`email`);