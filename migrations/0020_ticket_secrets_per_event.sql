-- A ticket secret is unique within its event, as pretix keeps it (order creation takes any text
-- an organizer's tickets printed elsewhere carry); every lookup of a secret names its event.
DROP INDEX `order_positions_secret_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `order_positions_event_secret_uq` ON `order_positions` (`event_id`,`secret`);