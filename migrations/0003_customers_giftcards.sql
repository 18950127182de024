CREATE TABLE `memberships` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`customer_id` integer NOT NULL,
	`membership_type_id` integer NOT NULL,
	`testmode` integer DEFAULT false NOT NULL,
	`date_start` integer NOT NULL,
	`date_end` integer NOT NULL,
	`attendee_name_parts` text,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`membership_type_id`) REFERENCES `membership_types`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE INDEX `memberships_organizer_idx` ON `memberships` (`organizer_id`);--> statement-breakpoint
CREATE INDEX `memberships_customer_idx` ON `memberships` (`customer_id`);--> statement-breakpoint
CREATE INDEX `memberships_type_idx` ON `memberships` (`membership_type_id`);--> statement-breakpoint
CREATE TABLE `gift_card_acceptances` (
	`issuer_id` integer NOT NULL,
	`acceptor_id` integer NOT NULL,
	`active` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`issuer_id`, `acceptor_id`),
	FOREIGN KEY (`issuer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`acceptor_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `gift_card_acceptances_acceptor_idx` ON `gift_card_acceptances` (`acceptor_id`);--> statement-breakpoint
CREATE TABLE `gift_card_transactions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`card_id` integer NOT NULL,
	`datetime` integer NOT NULL,
	`value` integer NOT NULL,
	`order_id` integer,
	`text` text,
	`acceptor_id` integer,
	FOREIGN KEY (`card_id`) REFERENCES `gift_cards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`acceptor_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `gift_card_transactions_card_idx` ON `gift_card_transactions` (`card_id`);--> statement-breakpoint
CREATE TABLE `gift_cards` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`issuer_id` integer NOT NULL,
	`secret` text NOT NULL,
	`value` integer DEFAULT 0 NOT NULL,
	`currency` text NOT NULL,
	`testmode` integer DEFAULT false NOT NULL,
	`expires` integer,
	`conditions` text,
	`issuance` integer NOT NULL,
	FOREIGN KEY (`issuer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `gift_cards_issuer_secret_uq` ON `gift_cards` (`issuer_id`,`secret`);--> statement-breakpoint
CREATE INDEX `gift_cards_secret_lower_idx` ON `gift_cards` (lower("secret"));--> statement-breakpoint
ALTER TABLE `customers` ADD `external_identifier` text;--> statement-breakpoint
ALTER TABLE `customers` ADD `password_hash` text;--> statement-breakpoint
ALTER TABLE `customers` ADD `name_parts` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `customers` ADD `name_cached` text;--> statement-breakpoint
ALTER TABLE `customers` ADD `is_active` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `customers` ADD `is_verified` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `customers` ADD `last_login` integer;--> statement-breakpoint
ALTER TABLE `customers` ADD `date_joined` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `customers` ADD `locale` text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE `customers` ADD `last_modified` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `customers` ADD `notes` text;--> statement-breakpoint
ALTER TABLE `customers` ADD `activation_token_hash` text;--> statement-breakpoint
ALTER TABLE `customers` ADD `activation_expires` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `customers_activation_token_hash_unique` ON `customers` (`activation_token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `customers_organizer_email_uq` ON `customers` (`organizer_id`,`email`);