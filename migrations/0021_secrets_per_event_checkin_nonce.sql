-- A ticket secret is unique within its event, as pretix keeps it (order creation takes any text
-- an organizer's tickets printed elsewhere carry); every lookup of a secret names its event.
-- checkinrpc/annul names the check-in it takes back by the scan's nonce on the given lists: found
-- through this index, not by walking every check-in of a list.
DROP INDEX `order_positions_secret_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `order_positions_event_secret_uq` ON `order_positions` (`event_id`,`secret`);--> statement-breakpoint
CREATE INDEX `checkins_list_nonce_idx` ON `checkins` (`list_id`,`nonce`) WHERE "checkins"."nonce" IS NOT NULL;