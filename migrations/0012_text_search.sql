-- Text search of orders and tickets (src/db/search.ts): contentless FTS5 indexes with the
-- trigram tokenizer (substrings of 3 or more characters, case-insensitive) over what the
-- `search` filters of the orders list and of a check-in list's tickets match, kept by triggers.
-- The indexes only narrow the candidates: every candidate is still tested with the exact
-- match (instr()), so a search finds exactly what it found before.
-- The rowid of orders_search is the order's id, of order_positions_search the position's id
-- (both AUTOINCREMENT: never reused). A contentless table forgets a row only when told the
-- values it indexed: the triggers delete with the same expressions as they insert.
CREATE VIRTUAL TABLE `orders_search` USING fts5(`code`, `email`, `comment`, `company`, `invoice_name`, content='', tokenize='trigram');--> statement-breakpoint
CREATE VIRTUAL TABLE `order_positions_search` USING fts5(`attendee_name`, `attendee_email`, `secret`, content='', tokenize='trigram');--> statement-breakpoint
CREATE TRIGGER `orders_search_insert` AFTER INSERT ON `orders` BEGIN
  INSERT INTO `orders_search` (rowid, `code`, `email`, `comment`, `company`, `invoice_name`) VALUES (new.`id`, new.`code`, new.`email`, new.`comment`,
    CASE WHEN json_valid(new.`invoice_address`) THEN json_extract(new.`invoice_address`, '$.company') END,
    CASE WHEN json_valid(new.`invoice_address`) THEN (SELECT group_concat(value, ' ') FROM json_each(new.`invoice_address`, '$.name_parts') WHERE type = 'text' AND substr(key, 1, 1) <> '_') END);
END;--> statement-breakpoint
CREATE TRIGGER `orders_search_delete` AFTER DELETE ON `orders` BEGIN
  INSERT INTO `orders_search` (`orders_search`, rowid, `code`, `email`, `comment`, `company`, `invoice_name`) VALUES ('delete', old.`id`, old.`code`, old.`email`, old.`comment`,
    CASE WHEN json_valid(old.`invoice_address`) THEN json_extract(old.`invoice_address`, '$.company') END,
    CASE WHEN json_valid(old.`invoice_address`) THEN (SELECT group_concat(value, ' ') FROM json_each(old.`invoice_address`, '$.name_parts') WHERE type = 'text' AND substr(key, 1, 1) <> '_') END);
END;--> statement-breakpoint
CREATE TRIGGER `orders_search_update` AFTER UPDATE OF `code`, `email`, `comment`, `invoice_address` ON `orders`
  WHEN old.`code` IS NOT new.`code` OR old.`email` IS NOT new.`email` OR old.`comment` IS NOT new.`comment` OR old.`invoice_address` IS NOT new.`invoice_address` BEGIN
  INSERT INTO `orders_search` (`orders_search`, rowid, `code`, `email`, `comment`, `company`, `invoice_name`) VALUES ('delete', old.`id`, old.`code`, old.`email`, old.`comment`,
    CASE WHEN json_valid(old.`invoice_address`) THEN json_extract(old.`invoice_address`, '$.company') END,
    CASE WHEN json_valid(old.`invoice_address`) THEN (SELECT group_concat(value, ' ') FROM json_each(old.`invoice_address`, '$.name_parts') WHERE type = 'text' AND substr(key, 1, 1) <> '_') END);
  INSERT INTO `orders_search` (rowid, `code`, `email`, `comment`, `company`, `invoice_name`) VALUES (new.`id`, new.`code`, new.`email`, new.`comment`,
    CASE WHEN json_valid(new.`invoice_address`) THEN json_extract(new.`invoice_address`, '$.company') END,
    CASE WHEN json_valid(new.`invoice_address`) THEN (SELECT group_concat(value, ' ') FROM json_each(new.`invoice_address`, '$.name_parts') WHERE type = 'text' AND substr(key, 1, 1) <> '_') END);
END;--> statement-breakpoint
CREATE TRIGGER `order_positions_search_insert` AFTER INSERT ON `order_positions` BEGIN
  INSERT INTO `order_positions_search` (rowid, `attendee_name`, `attendee_email`, `secret`) VALUES (new.`id`, new.`attendee_name`, new.`attendee_email`, new.`secret`);
END;--> statement-breakpoint
CREATE TRIGGER `order_positions_search_delete` AFTER DELETE ON `order_positions` BEGIN
  INSERT INTO `order_positions_search` (`order_positions_search`, rowid, `attendee_name`, `attendee_email`, `secret`) VALUES ('delete', old.`id`, old.`attendee_name`, old.`attendee_email`, old.`secret`);
END;--> statement-breakpoint
CREATE TRIGGER `order_positions_search_update` AFTER UPDATE OF `attendee_name`, `attendee_email`, `secret` ON `order_positions`
  WHEN old.`attendee_name` IS NOT new.`attendee_name` OR old.`attendee_email` IS NOT new.`attendee_email` OR old.`secret` IS NOT new.`secret` BEGIN
  INSERT INTO `order_positions_search` (`order_positions_search`, rowid, `attendee_name`, `attendee_email`, `secret`) VALUES ('delete', old.`id`, old.`attendee_name`, old.`attendee_email`, old.`secret`);
  INSERT INTO `order_positions_search` (rowid, `attendee_name`, `attendee_email`, `secret`) VALUES (new.`id`, new.`attendee_name`, new.`attendee_email`, new.`secret`);
END;--> statement-breakpoint
-- the rows written before
INSERT INTO `orders_search` (rowid, `code`, `email`, `comment`, `company`, `invoice_name`) SELECT `id`, `code`, `email`, `comment`,
  CASE WHEN json_valid(`invoice_address`) THEN json_extract(`invoice_address`, '$.company') END,
  CASE WHEN json_valid(`invoice_address`) THEN (SELECT group_concat(value, ' ') FROM json_each(`orders`.`invoice_address`, '$.name_parts') WHERE type = 'text' AND substr(key, 1, 1) <> '_') END
  FROM `orders`;--> statement-breakpoint
INSERT INTO `order_positions_search` (rowid, `attendee_name`, `attendee_email`, `secret`) SELECT `id`, `attendee_name`, `attendee_email`, `secret` FROM `order_positions`;
