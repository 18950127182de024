-- Tallies of each event's tickets (src/db/checkin.ts): how many positions that are not canceled
-- each product, date and order status has, kept by triggers in the statement that changes a
-- position, whichever write it is. A check-in list's tickets are a union of such groups (its
-- products, its date, its order statuses), so the list's total is a sum over a few tally rows
-- instead of a count over every ticket of the event. `subevent_id` is 0 for positions without
-- a date (a key column: NULLs would never conflict). Rows that fall to 0 stay.
CREATE TABLE `position_tallies` (
  `event_id` integer NOT NULL REFERENCES `events`(`id`) ON DELETE CASCADE,
  `item_id` integer NOT NULL,
  `subevent_id` integer NOT NULL,
  `order_status` text NOT NULL,
  `n` integer NOT NULL,
  PRIMARY KEY (`event_id`, `item_id`, `subevent_id`, `order_status`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `position_tallies` (`event_id`, `item_id`, `subevent_id`, `order_status`, `n`)
  SELECT `event_id`, `item_id`, coalesce(`subevent_id`, 0), `order_status`, count(*) FROM `order_positions` WHERE `canceled` = 0
  GROUP BY `event_id`, `item_id`, coalesce(`subevent_id`, 0), `order_status`;--> statement-breakpoint
CREATE TRIGGER `position_tallies_insert` AFTER INSERT ON `order_positions` WHEN new.`canceled` = 0 BEGIN
  INSERT INTO `position_tallies` (`event_id`, `item_id`, `subevent_id`, `order_status`, `n`)
    VALUES (new.`event_id`, new.`item_id`, coalesce(new.`subevent_id`, 0), new.`order_status`, 1)
    ON CONFLICT (`event_id`, `item_id`, `subevent_id`, `order_status`) DO UPDATE SET `n` = `n` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `position_tallies_delete` AFTER DELETE ON `order_positions` WHEN old.`canceled` = 0 BEGIN
  UPDATE `position_tallies` SET `n` = `n` - 1
    WHERE `event_id` = old.`event_id` AND `item_id` = old.`item_id` AND `subevent_id` = coalesce(old.`subevent_id`, 0) AND `order_status` = old.`order_status`;
END;--> statement-breakpoint
CREATE TRIGGER `position_tallies_update` AFTER UPDATE OF `event_id`, `item_id`, `subevent_id`, `order_status`, `canceled` ON `order_positions`
  WHEN old.`event_id` IS NOT new.`event_id` OR old.`item_id` IS NOT new.`item_id` OR old.`subevent_id` IS NOT new.`subevent_id`
    OR old.`order_status` IS NOT new.`order_status` OR old.`canceled` IS NOT new.`canceled` BEGIN
  UPDATE `position_tallies` SET `n` = `n` - 1
    WHERE old.`canceled` = 0 AND `event_id` = old.`event_id` AND `item_id` = old.`item_id` AND `subevent_id` = coalesce(old.`subevent_id`, 0)
      AND `order_status` = old.`order_status`;
  INSERT INTO `position_tallies` (`event_id`, `item_id`, `subevent_id`, `order_status`, `n`)
    SELECT new.`event_id`, new.`item_id`, coalesce(new.`subevent_id`, 0), new.`order_status`, 1 WHERE new.`canceled` = 0
    ON CONFLICT (`event_id`, `item_id`, `subevent_id`, `order_status`) DO UPDATE SET `n` = `n` + 1;
END;
