ALTER TABLE `memberships` ADD `granted_in` integer;--> statement-breakpoint
CREATE INDEX `memberships_granted_in_idx` ON `memberships` (`granted_in`);