-- What scanners show at the door (pretix): a product's and a variation's `checkin_text`, and a
-- question's `show_during_checkin` (the ticket's answer is shown when it is scanned).
ALTER TABLE `questions` ADD `show_during_checkin` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `item_variations` ADD `checkin_text` text;--> statement-breakpoint
ALTER TABLE `items` ADD `checkin_text` text;