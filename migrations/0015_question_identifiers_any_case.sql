DROP INDEX `questions_event_identifier_uq`;--> statement-breakpoint
CREATE UNIQUE INDEX `questions_event_identifier_lower_uq` ON `questions` (`event_id`,lower("identifier"));