CREATE TABLE `order_transactions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	`created` integer NOT NULL,
	`datetime` integer NOT NULL,
	`positionid` integer,
	`count` integer NOT NULL,
	`item_id` integer,
	`variation_id` integer,
	`subevent_id` integer,
	`price` integer NOT NULL,
	`tax_rate` integer NOT NULL,
	`tax_rule_id` integer,
	`tax_value` integer NOT NULL,
	`fee_type` text,
	`internal_type` text,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE INDEX `order_transactions_event_idx` ON `order_transactions` (`event_id`,`id`);--> statement-breakpoint
CREATE INDEX `order_transactions_order_idx` ON `order_transactions` (`order_id`);--> statement-breakpoint
CREATE INDEX `order_transactions_event_datetime_idx` ON `order_transactions` (`event_id`,`datetime`);--> statement-breakpoint
CREATE INDEX `order_transactions_event_created_idx` ON `order_transactions` (`event_id`,`created`);--> statement-breakpoint
-- What pending and paid orders owe before the ledger existed: one transaction per position and fee, as of the order's placement.
INSERT INTO `order_transactions` (`order_id`, `event_id`, `created`, `datetime`, `positionid`, `count`, `item_id`, `variation_id`, `subevent_id`, `price`, `tax_rate`, `tax_rule_id`, `tax_value`, `fee_type`, `internal_type`)
SELECT o.`id`, o.`event_id`, CAST(strftime('%s', 'now') AS INTEGER) * 1000, o.`datetime`, p.`positionid`, 1, p.`item_id`, p.`variation_id`, p.`subevent_id`, p.`price`, p.`tax_rate`, p.`tax_rule_id`, p.`tax_value`, NULL, NULL
FROM `order_positions` p JOIN `orders` o ON o.`id` = p.`order_id`
WHERE p.`canceled` = 0 AND o.`status` IN ('n', 'p') ORDER BY o.`id`, p.`positionid`;--> statement-breakpoint
INSERT INTO `order_transactions` (`order_id`, `event_id`, `created`, `datetime`, `positionid`, `count`, `item_id`, `variation_id`, `subevent_id`, `price`, `tax_rate`, `tax_rule_id`, `tax_value`, `fee_type`, `internal_type`)
SELECT o.`id`, o.`event_id`, CAST(strftime('%s', 'now') AS INTEGER) * 1000, o.`datetime`, NULL, 1, NULL, NULL, NULL, f.`value`, f.`tax_rate`, f.`tax_rule_id`, f.`tax_value`, f.`fee_type`, f.`internal_type`
FROM `order_fees` f JOIN `orders` o ON o.`id` = f.`order_id`
WHERE f.`canceled` = 0 AND o.`status` IN ('n', 'p') ORDER BY o.`id`, f.`id`;
