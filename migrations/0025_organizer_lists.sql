-- The organizer-level lists (pretix docs orders.rst: `GET /organizers/{o}/orders/`, and the
-- order positions of every event): each order keeps its event's organizer, set by a trigger in
-- the statement that writes the order (whichever write it is; a copied row keeps its own), so
-- that the organizer's orders are walked in each ordering from one index across its events.
-- The positions list's `pseudonymization_id` filter seeks its index.
ALTER TABLE `orders` ADD `organizer_id` integer;--> statement-breakpoint
UPDATE `orders` SET `organizer_id` = (SELECT `organizer_id` FROM `events` WHERE `events`.`id` = `orders`.`event_id`);--> statement-breakpoint
CREATE TRIGGER `orders_organizer_insert` AFTER INSERT ON `orders` WHEN new.`organizer_id` IS NULL BEGIN
  UPDATE `orders` SET `organizer_id` = (SELECT `organizer_id` FROM `events` WHERE `id` = new.`event_id`) WHERE `id` = new.`id`;
END;--> statement-breakpoint
CREATE INDEX `orders_organizer_datetime_idx` ON `orders` (`organizer_id`,`datetime`);--> statement-breakpoint
CREATE INDEX `orders_organizer_code_idx` ON `orders` (`organizer_id`,`code`);--> statement-breakpoint
CREATE INDEX `orders_organizer_status_idx` ON `orders` (`organizer_id`,`status`);--> statement-breakpoint
CREATE INDEX `orders_organizer_modified_idx` ON `orders` (`organizer_id`,`last_modified`);--> statement-breakpoint
CREATE INDEX `orders_organizer_cancellation_idx` ON `orders` (`organizer_id`,`cancellation_date`);--> statement-breakpoint
CREATE INDEX `order_positions_event_pseudonymization_idx` ON `order_positions` (`event_id`,`pseudonymization_id`);