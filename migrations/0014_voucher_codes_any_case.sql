DROP INDEX `vouchers_event_code_uq`;--> statement-breakpoint
CREATE UNIQUE INDEX `vouchers_event_code_lower_uq` ON `vouchers` (`event_id`,lower("code"));