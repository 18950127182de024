-- Tallies of each event's orders (src/db/orders.ts): how many orders each status and test mode
-- has, kept by triggers in the statement that changes an order, whichever write it is. The
-- orders list's total without filters (or filtered by `status` or `testmode` only) is then a
-- sum over at most eight rows instead of a count over every order of the event (about 1 ms at
-- 50,000 orders, in every page). Rows that fall to 0 stay.
CREATE TABLE `order_tallies` (
  `event_id` integer NOT NULL REFERENCES `events`(`id`) ON DELETE CASCADE,
  `status` text NOT NULL,
  `testmode` integer NOT NULL,
  `n` integer NOT NULL,
  PRIMARY KEY (`event_id`, `status`, `testmode`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `order_tallies` (`event_id`, `status`, `testmode`, `n`)
  SELECT `event_id`, `status`, `testmode`, count(*) FROM `orders` GROUP BY `event_id`, `status`, `testmode`;--> statement-breakpoint
CREATE TRIGGER `order_tallies_insert` AFTER INSERT ON `orders` BEGIN
  INSERT INTO `order_tallies` (`event_id`, `status`, `testmode`, `n`) VALUES (new.`event_id`, new.`status`, new.`testmode`, 1)
    ON CONFLICT (`event_id`, `status`, `testmode`) DO UPDATE SET `n` = `n` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `order_tallies_delete` AFTER DELETE ON `orders` BEGIN
  UPDATE `order_tallies` SET `n` = `n` - 1 WHERE `event_id` = old.`event_id` AND `status` = old.`status` AND `testmode` = old.`testmode`;
END;--> statement-breakpoint
CREATE TRIGGER `order_tallies_update` AFTER UPDATE OF `event_id`, `status`, `testmode` ON `orders`
  WHEN old.`event_id` IS NOT new.`event_id` OR old.`status` IS NOT new.`status` OR old.`testmode` IS NOT new.`testmode` BEGIN
  UPDATE `order_tallies` SET `n` = `n` - 1 WHERE `event_id` = old.`event_id` AND `status` = old.`status` AND `testmode` = old.`testmode`;
  INSERT INTO `order_tallies` (`event_id`, `status`, `testmode`, `n`) VALUES (new.`event_id`, new.`status`, new.`testmode`, 1)
    ON CONFLICT (`event_id`, `status`, `testmode`) DO UPDATE SET `n` = `n` + 1;
END;
