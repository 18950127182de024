-- Positions written before 0005: their order's status, and the name lists sort them by (the
-- attendee's, or for an add-on without one its base position's).
UPDATE `order_positions` SET `order_status` = (SELECT `status` FROM `orders` WHERE `orders`.`id` = `order_positions`.`order_id`);--> statement-breakpoint
UPDATE `order_positions` SET `sort_name` = coalesce(nullif(`attendee_name`, ''), (SELECT b.`attendee_name` FROM `order_positions` b WHERE b.`id` = `order_positions`.`addon_to`));
