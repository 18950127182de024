ALTER TABLE `cart_positions` ADD `seat_id` integer;--> statement-breakpoint
ALTER TABLE `cart_positions` ADD `seat_name` text;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `seat_id` integer;--> statement-breakpoint
ALTER TABLE `order_positions` ADD `seat_name` text;