CREATE TABLE `organizer_settings` (
	`organizer_id` integer NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`organizer_id`, `key`),
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `organizers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizers_slug_unique` ON `organizers` (`slug`);--> statement-breakpoint
CREATE TABLE `team_api_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_api_tokens_token_hash_unique` ON `team_api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `team_api_tokens_team_idx` ON `team_api_tokens` (`team_id`);--> statement-breakpoint
CREATE TABLE `team_invites` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`email` text NOT NULL,
	`token` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_invites_token_unique` ON `team_invites` (`token`);--> statement-breakpoint
CREATE UNIQUE INDEX `team_invites_team_email_uq` ON `team_invites` (`team_id`,`email`);--> statement-breakpoint
CREATE TABLE `team_members` (
	`team_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	PRIMARY KEY(`team_id`, `user_id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `teams` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`name` text NOT NULL,
	`all_events` integer DEFAULT false NOT NULL,
	`can_create_events` integer DEFAULT false NOT NULL,
	`can_change_teams` integer DEFAULT false NOT NULL,
	`can_change_organizer_settings` integer DEFAULT false NOT NULL,
	`can_manage_customers` integer DEFAULT false NOT NULL,
	`can_manage_gift_cards` integer DEFAULT false NOT NULL,
	`can_change_event_settings` integer DEFAULT false NOT NULL,
	`can_change_items` integer DEFAULT false NOT NULL,
	`can_view_orders` integer DEFAULT false NOT NULL,
	`can_change_orders` integer DEFAULT false NOT NULL,
	`can_view_vouchers` integer DEFAULT false NOT NULL,
	`can_change_vouchers` integer DEFAULT false NOT NULL,
	`can_checkin_orders` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `teams_organizer_idx` ON `teams` (`organizer_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text NOT NULL,
	`fullname` text,
	`require_2fa` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `event_meta_properties` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`name` text NOT NULL,
	`default_value` text DEFAULT '' NOT NULL,
	`required` integer DEFAULT false NOT NULL,
	`protected` integer DEFAULT false NOT NULL,
	`filter_public` integer DEFAULT false NOT NULL,
	`public_label` text,
	`filter_allowed` integer DEFAULT true NOT NULL,
	`choices` text,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `event_meta_properties_organizer_name_uq` ON `event_meta_properties` (`organizer_id`,`name`);--> statement-breakpoint
CREATE TABLE `event_meta_values` (
	`event_id` integer NOT NULL,
	`property_id` integer NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`event_id`, `property_id`),
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`property_id`) REFERENCES `event_meta_properties`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `event_meta_values_property_idx` ON `event_meta_values` (`property_id`);--> statement-breakpoint
CREATE TABLE `event_settings` (
	`event_id` integer NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`event_id`, `key`),
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`live` integer DEFAULT false NOT NULL,
	`testmode` integer DEFAULT false NOT NULL,
	`currency` text NOT NULL,
	`date_from` integer NOT NULL,
	`date_to` integer,
	`date_admission` integer,
	`is_public` integer DEFAULT true NOT NULL,
	`presale_start` integer,
	`presale_end` integer,
	`location` text,
	`geo_lat` real,
	`geo_lon` real,
	`has_subevents` integer DEFAULT false NOT NULL,
	`plugins` text NOT NULL,
	`seating_plan_id` integer,
	`seat_category_mapping` text NOT NULL,
	`timezone` text DEFAULT 'UTC' NOT NULL,
	`item_meta_properties` text NOT NULL,
	`sales_channels` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_modified` integer NOT NULL,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_organizer_slug_uq` ON `events` (`organizer_id`,`slug`);--> statement-breakpoint
CREATE INDEX `events_organizer_date_idx` ON `events` (`organizer_id`,`date_from`);--> statement-breakpoint
CREATE TABLE `subevent_item_variations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subevent_id` integer NOT NULL,
	`variation_id` integer NOT NULL,
	`price` integer,
	`disabled` integer DEFAULT false NOT NULL,
	`available_from` integer,
	`available_until` integer,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subevent_item_variations_uq` ON `subevent_item_variations` (`subevent_id`,`variation_id`);--> statement-breakpoint
CREATE INDEX `subevent_item_variations_variation_idx` ON `subevent_item_variations` (`variation_id`);--> statement-breakpoint
CREATE TABLE `subevent_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subevent_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`price` integer,
	`disabled` integer DEFAULT false NOT NULL,
	`available_from` integer,
	`available_until` integer,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subevent_items_uq` ON `subevent_items` (`subevent_id`,`item_id`);--> statement-breakpoint
CREATE INDEX `subevent_items_item_idx` ON `subevent_items` (`item_id`);--> statement-breakpoint
CREATE TABLE `subevent_meta_values` (
	`subevent_id` integer NOT NULL,
	`property_id` integer NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`subevent_id`, `property_id`),
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`property_id`) REFERENCES `event_meta_properties`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `subevent_meta_values_property_idx` ON `subevent_meta_values` (`property_id`);--> statement-breakpoint
CREATE TABLE `subevents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`name` text NOT NULL,
	`active` integer DEFAULT false NOT NULL,
	`is_public` integer DEFAULT true NOT NULL,
	`date_from` integer NOT NULL,
	`date_to` integer,
	`date_admission` integer,
	`presale_start` integer,
	`presale_end` integer,
	`location` text,
	`frontpage_text` text,
	`geo_lat` real,
	`geo_lon` real,
	`seating_plan_id` integer,
	`seat_category_mapping` text DEFAULT '{}' NOT NULL,
	`last_modified` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `subevents_event_date_idx` ON `subevents` (`event_id`,`date_from`);--> statement-breakpoint
CREATE INDEX `subevents_event_modified_idx` ON `subevents` (`event_id`,`last_modified`);--> statement-breakpoint
CREATE TABLE `team_events` (
	`team_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	PRIMARY KEY(`team_id`, `event_id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `team_events_event_idx` ON `team_events` (`event_id`);--> statement-breakpoint
CREATE TABLE `device_events` (
	`device_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	PRIMARY KEY(`device_id`, `event_id`),
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `device_events_event_idx` ON `device_events` (`event_id`);--> statement-breakpoint
CREATE TABLE `devices` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`device_id` integer NOT NULL,
	`unique_serial` text NOT NULL,
	`name` text NOT NULL,
	`all_events` integer DEFAULT false NOT NULL,
	`hardware_brand` text,
	`hardware_model` text,
	`software_brand` text,
	`software_version` text,
	`info` text,
	`created_at` integer NOT NULL,
	`initialized` integer,
	`initialization_token` text NOT NULL,
	`api_token_hash` text,
	`revoked` integer DEFAULT false NOT NULL,
	`security_profile` text DEFAULT 'full' NOT NULL,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `devices_unique_serial_unique` ON `devices` (`unique_serial`);--> statement-breakpoint
CREATE UNIQUE INDEX `devices_initialization_token_unique` ON `devices` (`initialization_token`);--> statement-breakpoint
CREATE UNIQUE INDEX `devices_api_token_hash_unique` ON `devices` (`api_token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `devices_organizer_device_uq` ON `devices` (`organizer_id`,`device_id`);--> statement-breakpoint
CREATE TABLE `change_stamps` (
	`scope` text NOT NULL,
	`resource` text NOT NULL,
	`modified_at` integer NOT NULL,
	PRIMARY KEY(`scope`, `resource`)
);
--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`response_status` integer,
	`response_headers` text,
	`response_body` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_idx` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `mail_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer,
	`event_id` integer,
	`kind` text NOT NULL,
	`to_address` text NOT NULL,
	`from_name` text,
	`reply_to` text,
	`subject` text NOT NULL,
	`text_body` text NOT NULL,
	`html_body` text,
	`state` text DEFAULT 'queued' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`message_id` text,
	`created_at` integer NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE INDEX `mail_outbox_state_idx` ON `mail_outbox` (`state`,`created_at`);--> statement-breakpoint
CREATE INDEX `mail_outbox_organizer_idx` ON `mail_outbox` (`organizer_id`);--> statement-breakpoint
CREATE TABLE `uploaded_files` (
	`id` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`filename` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `uploaded_files_created_idx` ON `uploaded_files` (`created_at`);--> statement-breakpoint
CREATE TABLE `discount_items` (
	`discount_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	PRIMARY KEY(`discount_id`, `item_id`),
	FOREIGN KEY (`discount_id`) REFERENCES `discounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `discount_items_item_idx` ON `discount_items` (`item_id`);--> statement-breakpoint
CREATE TABLE `discounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`internal_name` text NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`sales_channels` text NOT NULL,
	`available_from` integer,
	`available_until` integer,
	`subevent_mode` text DEFAULT 'mixed' NOT NULL,
	`condition_all_products` integer DEFAULT true NOT NULL,
	`condition_apply_to_addons` integer DEFAULT true NOT NULL,
	`condition_ignore_voucher_discounted` integer DEFAULT false NOT NULL,
	`condition_min_count` integer DEFAULT 0 NOT NULL,
	`condition_min_value` integer DEFAULT 0 NOT NULL,
	`benefit_discount_matching_percent` integer DEFAULT 0 NOT NULL,
	`benefit_only_apply_to_cheapest_n_matches` integer,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `discounts_event_idx` ON `discounts` (`event_id`,`position`);--> statement-breakpoint
CREATE TABLE `question_items` (
	`question_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	PRIMARY KEY(`question_id`, `item_id`),
	FOREIGN KEY (`question_id`) REFERENCES `questions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `question_items_item_idx` ON `question_items` (`item_id`);--> statement-breakpoint
CREATE TABLE `question_options` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`question_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	`identifier` text NOT NULL,
	`answer` text NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`question_id`) REFERENCES `questions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `question_options_question_idx` ON `question_options` (`question_id`,`position`);--> statement-breakpoint
CREATE UNIQUE INDEX `question_options_event_identifier_uq` ON `question_options` (`event_id`,`identifier`);--> statement-breakpoint
CREATE TABLE `questions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`question` text NOT NULL,
	`help_text` text,
	`type` text NOT NULL,
	`required` integer DEFAULT false NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`identifier` text NOT NULL,
	`ask_during_checkin` integer DEFAULT false NOT NULL,
	`hidden` integer DEFAULT false NOT NULL,
	`print_on_invoice` integer DEFAULT false NOT NULL,
	`valid_number_min` text,
	`valid_number_max` text,
	`valid_date_min` text,
	`valid_date_max` text,
	`valid_datetime_min` integer,
	`valid_datetime_max` integer,
	`valid_file_portrait` integer DEFAULT false NOT NULL,
	`dependency_question_id` integer,
	`dependency_values` text NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`dependency_question_id`) REFERENCES `questions`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `questions_event_idx` ON `questions` (`event_id`,`position`);--> statement-breakpoint
CREATE UNIQUE INDEX `questions_event_identifier_uq` ON `questions` (`event_id`,`identifier`);--> statement-breakpoint
CREATE INDEX `questions_dependency_idx` ON `questions` (`dependency_question_id`);--> statement-breakpoint
CREATE TABLE `seating_plan_seats` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`plan_id` integer NOT NULL,
	`seat_guid` text NOT NULL,
	`zone_name` text DEFAULT '' NOT NULL,
	`row_name` text DEFAULT '' NOT NULL,
	`row_label` text,
	`seat_number` text DEFAULT '' NOT NULL,
	`seat_label` text,
	`category` text NOT NULL,
	`sorting_rank` integer DEFAULT 0 NOT NULL,
	`x` real,
	`y` real,
	FOREIGN KEY (`plan_id`) REFERENCES `seating_plans`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `seating_plan_seats_guid_uq` ON `seating_plan_seats` (`plan_id`,`seat_guid`);--> statement-breakpoint
CREATE INDEX `seating_plan_seats_rank_idx` ON `seating_plan_seats` (`plan_id`,`sorting_rank`);--> statement-breakpoint
CREATE TABLE `seating_plans` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`name` text NOT NULL,
	`layout` text NOT NULL,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `seating_plans_organizer_idx` ON `seating_plans` (`organizer_id`,`name`);--> statement-breakpoint
CREATE TABLE `sendmail_rule_items` (
	`rule_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	PRIMARY KEY(`rule_id`, `item_id`),
	FOREIGN KEY (`rule_id`) REFERENCES `sendmail_rules`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sendmail_rule_items_item_idx` ON `sendmail_rule_items` (`item_id`);--> statement-breakpoint
CREATE TABLE `sendmail_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`subject` text NOT NULL,
	`template` text NOT NULL,
	`all_products` integer DEFAULT true NOT NULL,
	`include_pending` integer DEFAULT false NOT NULL,
	`date_is_absolute` integer DEFAULT true NOT NULL,
	`send_date` integer,
	`send_offset_days` integer,
	`send_offset_time` text,
	`offset_to_event_end` integer DEFAULT false NOT NULL,
	`offset_is_after` integer DEFAULT false NOT NULL,
	`send_to` text DEFAULT 'orders' NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sendmail_rules_event_idx` ON `sendmail_rules` (`event_id`);--> statement-breakpoint
CREATE TABLE `tax_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`name` text NOT NULL,
	`internal_name` text,
	`rate` integer NOT NULL,
	`price_includes_tax` integer DEFAULT true NOT NULL,
	`eu_reverse_charge` integer DEFAULT false NOT NULL,
	`home_country` text,
	`keep_gross_if_rate_changes` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tax_rules_event_idx` ON `tax_rules` (`event_id`);--> statement-breakpoint
CREATE TABLE `ticket_layout_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`layout_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`sales_channel` text DEFAULT 'web' NOT NULL,
	FOREIGN KEY (`layout_id`) REFERENCES `ticket_layouts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_layout_items_item_channel_uq` ON `ticket_layout_items` (`item_id`,`sales_channel`);--> statement-breakpoint
CREATE INDEX `ticket_layout_items_layout_idx` ON `ticket_layout_items` (`layout_id`);--> statement-breakpoint
CREATE TABLE `ticket_layouts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`name` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`layout` text NOT NULL,
	`background` text,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ticket_layouts_event_idx` ON `ticket_layouts` (`event_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_layouts_one_default_uq` ON `ticket_layouts` (`event_id`) WHERE is_default = 1;--> statement-breakpoint
CREATE TABLE `item_addons` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`item_id` integer NOT NULL,
	`addon_category_id` integer NOT NULL,
	`min_count` integer DEFAULT 0 NOT NULL,
	`max_count` integer DEFAULT 1 NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`price_included` integer DEFAULT false NOT NULL,
	`multi_allowed` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`addon_category_id`) REFERENCES `item_categories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `item_addons_item_category_uq` ON `item_addons` (`item_id`,`addon_category_id`);--> statement-breakpoint
CREATE INDEX `item_addons_category_idx` ON `item_addons` (`addon_category_id`);--> statement-breakpoint
CREATE TABLE `item_bundles` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`item_id` integer NOT NULL,
	`bundled_item_id` integer NOT NULL,
	`bundled_variation_id` integer,
	`count` integer DEFAULT 1 NOT NULL,
	`designated_price` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bundled_item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bundled_variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `item_bundles_item_idx` ON `item_bundles` (`item_id`);--> statement-breakpoint
CREATE INDEX `item_bundles_bundled_item_idx` ON `item_bundles` (`bundled_item_id`);--> statement-breakpoint
CREATE INDEX `item_bundles_bundled_variation_idx` ON `item_bundles` (`bundled_variation_id`);--> statement-breakpoint
CREATE TABLE `item_categories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`name` text NOT NULL,
	`internal_name` text,
	`description` text,
	`position` integer DEFAULT 0 NOT NULL,
	`is_addon` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `item_categories_event_idx` ON `item_categories` (`event_id`,`position`);--> statement-breakpoint
CREATE TABLE `item_membership_types` (
	`item_id` integer NOT NULL,
	`membership_type_id` integer NOT NULL,
	PRIMARY KEY(`item_id`, `membership_type_id`),
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`membership_type_id`) REFERENCES `membership_types`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `item_membership_types_type_idx` ON `item_membership_types` (`membership_type_id`);--> statement-breakpoint
CREATE TABLE `item_variations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`item_id` integer NOT NULL,
	`value` text NOT NULL,
	`default_price` integer,
	`original_price` integer,
	`active` integer DEFAULT true NOT NULL,
	`description` text,
	`position` integer DEFAULT 0 NOT NULL,
	`checkin_attention` integer DEFAULT false NOT NULL,
	`require_approval` integer DEFAULT false NOT NULL,
	`require_membership` integer DEFAULT false NOT NULL,
	`require_membership_hidden` integer DEFAULT false NOT NULL,
	`hide_without_voucher` integer DEFAULT false NOT NULL,
	`sales_channels` text NOT NULL,
	`available_from` integer,
	`available_until` integer,
	`meta_data` text NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `item_variations_item_idx` ON `item_variations` (`item_id`,`position`);--> statement-breakpoint
CREATE TABLE `items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`category_id` integer,
	`name` text NOT NULL,
	`internal_name` text,
	`default_price` integer NOT NULL,
	`original_price` integer,
	`tax_rule_id` integer,
	`active` integer DEFAULT true NOT NULL,
	`description` text,
	`free_price` integer DEFAULT false NOT NULL,
	`admission` integer DEFAULT false NOT NULL,
	`personalized` integer DEFAULT false NOT NULL,
	`issue_giftcard` integer DEFAULT false NOT NULL,
	`checkin_attention` integer DEFAULT false NOT NULL,
	`require_approval` integer DEFAULT false NOT NULL,
	`require_bundling` integer DEFAULT false NOT NULL,
	`generate_tickets` integer,
	`allow_waitinglist` integer DEFAULT true NOT NULL,
	`show_quota_left` integer,
	`allow_cancel` integer DEFAULT true NOT NULL,
	`require_voucher` integer DEFAULT false NOT NULL,
	`hide_without_voucher` integer DEFAULT false NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`picture` text,
	`sales_channels` text NOT NULL,
	`available_from` integer,
	`available_until` integer,
	`hidden_if_available_id` integer,
	`min_per_order` integer,
	`max_per_order` integer,
	`require_membership` integer DEFAULT false NOT NULL,
	`require_membership_hidden` integer DEFAULT false NOT NULL,
	`grant_membership_type_id` integer,
	`grant_membership_duration_like_event` integer DEFAULT true NOT NULL,
	`grant_membership_duration_days` integer DEFAULT 0 NOT NULL,
	`grant_membership_duration_months` integer DEFAULT 0 NOT NULL,
	`validity_mode` text,
	`validity_fixed_from` integer,
	`validity_fixed_until` integer,
	`validity_dynamic_duration_minutes` integer,
	`validity_dynamic_duration_hours` integer,
	`validity_dynamic_duration_days` integer,
	`validity_dynamic_duration_months` integer,
	`validity_dynamic_start_choice` integer DEFAULT false NOT NULL,
	`validity_dynamic_start_choice_day_limit` integer,
	`has_variations` integer DEFAULT false NOT NULL,
	`meta_data` text NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`category_id`) REFERENCES `item_categories`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`tax_rule_id`) REFERENCES `tax_rules`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`hidden_if_available_id`) REFERENCES `quotas`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`grant_membership_type_id`) REFERENCES `membership_types`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `items_event_idx` ON `items` (`event_id`,`position`);--> statement-breakpoint
CREATE INDEX `items_category_idx` ON `items` (`category_id`);--> statement-breakpoint
CREATE INDEX `items_tax_rule_idx` ON `items` (`tax_rule_id`);--> statement-breakpoint
CREATE INDEX `items_grant_membership_type_idx` ON `items` (`grant_membership_type_id`);--> statement-breakpoint
CREATE INDEX `items_hidden_if_available_idx` ON `items` (`hidden_if_available_id`);--> statement-breakpoint
CREATE TABLE `variation_membership_types` (
	`variation_id` integer NOT NULL,
	`membership_type_id` integer NOT NULL,
	PRIMARY KEY(`variation_id`, `membership_type_id`),
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`membership_type_id`) REFERENCES `membership_types`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `variation_membership_types_type_idx` ON `variation_membership_types` (`membership_type_id`);--> statement-breakpoint
CREATE TABLE `membership_types` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`name` text NOT NULL,
	`transferable` integer DEFAULT false NOT NULL,
	`allow_parallel_usage` integer DEFAULT false NOT NULL,
	`max_usages` integer,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `membership_types_organizer_idx` ON `membership_types` (`organizer_id`);--> statement-breakpoint
CREATE TABLE `customers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`identifier` text NOT NULL,
	`external_identifier` text,
	`email` text,
	`password_hash` text,
	`name_parts` text DEFAULT '{}' NOT NULL,
	`name_cached` text,
	`is_active` integer DEFAULT true NOT NULL,
	`is_verified` integer DEFAULT true NOT NULL,
	`last_login` integer,
	`date_joined` integer DEFAULT 0 NOT NULL,
	`locale` text DEFAULT 'en' NOT NULL,
	`last_modified` integer DEFAULT 0 NOT NULL,
	`notes` text,
	`activation_token_hash` text,
	`activation_expires` integer,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_identifier_unique` ON `customers` (`identifier`);--> statement-breakpoint
CREATE UNIQUE INDEX `customers_activation_token_hash_unique` ON `customers` (`activation_token_hash`);--> statement-breakpoint
CREATE INDEX `customers_organizer_idx` ON `customers` (`organizer_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `customers_organizer_email_uq` ON `customers` (`organizer_id`,`email`);--> statement-breakpoint
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
CREATE TABLE `cart_positions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`cart_id` text NOT NULL,
	`hold_key` text NOT NULL,
	`datetime` integer NOT NULL,
	`expires` integer NOT NULL,
	`item_id` integer NOT NULL,
	`variation_id` integer,
	`subevent_id` integer,
	`price` integer NOT NULL,
	`attendee_name_parts` text NOT NULL,
	`attendee_email` text,
	`voucher_id` integer,
	`addon_to` integer,
	`is_bundled` integer DEFAULT false NOT NULL,
	`includes_tax` integer DEFAULT true NOT NULL,
	`seat` text,
	`sales_channel` text DEFAULT 'web' NOT NULL,
	`answers` text NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`voucher_id`) REFERENCES `vouchers`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cart_positions_hold_key_unique` ON `cart_positions` (`hold_key`);--> statement-breakpoint
CREATE INDEX `cart_positions_event_cart_idx` ON `cart_positions` (`event_id`,`cart_id`);--> statement-breakpoint
CREATE INDEX `cart_positions_expires_idx` ON `cart_positions` (`expires`);--> statement-breakpoint
CREATE TABLE `order_fees` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`fee_type` text NOT NULL,
	`value` integer NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`internal_type` text DEFAULT '' NOT NULL,
	`tax_rate` integer DEFAULT 0 NOT NULL,
	`tax_value` integer DEFAULT 0 NOT NULL,
	`tax_rule_id` integer,
	`canceled` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tax_rule_id`) REFERENCES `tax_rules`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE INDEX `order_fees_order_idx` ON `order_fees` (`order_id`);--> statement-breakpoint
CREATE INDEX `order_fees_tax_rule_idx` ON `order_fees` (`tax_rule_id`);--> statement-breakpoint
CREATE TABLE `order_payments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`local_id` integer NOT NULL,
	`state` text NOT NULL,
	`amount` integer NOT NULL,
	`provider` text NOT NULL,
	`created` integer NOT NULL,
	`payment_date` integer,
	`info` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `order_payments_order_local_uq` ON `order_payments` (`order_id`,`local_id`);--> statement-breakpoint
CREATE TABLE `order_positions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	`positionid` integer NOT NULL,
	`item_id` integer NOT NULL,
	`variation_id` integer,
	`subevent_id` integer,
	`price` integer NOT NULL,
	`attendee_name` text,
	`attendee_name_parts` text NOT NULL,
	`attendee_email` text,
	`voucher_id` integer,
	`tax_rate` integer DEFAULT 0 NOT NULL,
	`tax_value` integer DEFAULT 0 NOT NULL,
	`tax_rule_id` integer,
	`secret` text NOT NULL,
	`addon_to` integer,
	`is_bundled` integer DEFAULT false NOT NULL,
	`pseudonymization_id` text NOT NULL,
	`seat` text,
	`answers` text NOT NULL,
	`canceled` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`voucher_id`) REFERENCES `vouchers`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`tax_rule_id`) REFERENCES `tax_rules`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE UNIQUE INDEX `order_positions_secret_unique` ON `order_positions` (`secret`);--> statement-breakpoint
CREATE UNIQUE INDEX `order_positions_order_positionid_uq` ON `order_positions` (`order_id`,`positionid`);--> statement-breakpoint
CREATE INDEX `order_positions_event_idx` ON `order_positions` (`event_id`,`id`);--> statement-breakpoint
CREATE INDEX `order_positions_item_idx` ON `order_positions` (`item_id`);--> statement-breakpoint
CREATE INDEX `order_positions_variation_idx` ON `order_positions` (`variation_id`);--> statement-breakpoint
CREATE INDEX `order_positions_subevent_idx` ON `order_positions` (`subevent_id`);--> statement-breakpoint
CREATE INDEX `order_positions_voucher_idx` ON `order_positions` (`voucher_id`);--> statement-breakpoint
CREATE INDEX `order_positions_tax_rule_idx` ON `order_positions` (`tax_rule_id`);--> statement-breakpoint
CREATE TABLE `orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`code` text NOT NULL,
	`status` text NOT NULL,
	`testmode` integer DEFAULT false NOT NULL,
	`secret` text NOT NULL,
	`email` text,
	`phone` text,
	`locale` text DEFAULT 'en' NOT NULL,
	`sales_channel` text DEFAULT 'web' NOT NULL,
	`datetime` integer NOT NULL,
	`expires` integer NOT NULL,
	`total` integer NOT NULL,
	`comment` text DEFAULT '' NOT NULL,
	`checkin_attention` integer DEFAULT false NOT NULL,
	`require_approval` integer DEFAULT false NOT NULL,
	`invoice_address` text,
	`customer_id` integer,
	`cancellation_date` integer,
	`last_modified` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_event_code_uq` ON `orders` (`event_id`,`code`);--> statement-breakpoint
CREATE INDEX `orders_event_datetime_idx` ON `orders` (`event_id`,`datetime`);--> statement-breakpoint
CREATE INDEX `orders_event_modified_idx` ON `orders` (`event_id`,`last_modified`);--> statement-breakpoint
CREATE INDEX `orders_status_expires_idx` ON `orders` (`status`,`expires`);--> statement-breakpoint
CREATE INDEX `orders_customer_idx` ON `orders` (`customer_id`);--> statement-breakpoint
CREATE TABLE `quota_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`quota_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`variation_id` integer,
	FOREIGN KEY (`quota_id`) REFERENCES `quotas`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `quota_items_quota_idx` ON `quota_items` (`quota_id`);--> statement-breakpoint
CREATE INDEX `quota_items_item_idx` ON `quota_items` (`item_id`);--> statement-breakpoint
CREATE INDEX `quota_items_variation_idx` ON `quota_items` (`variation_id`);--> statement-breakpoint
CREATE TABLE `quotas` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`subevent_id` integer,
	`name` text NOT NULL,
	`size` integer,
	`close_when_sold_out` integer DEFAULT false NOT NULL,
	`closed` integer DEFAULT false NOT NULL,
	`release_after_exit` integer DEFAULT false NOT NULL,
	`ignore_for_event_availability` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `quotas_event_idx` ON `quotas` (`event_id`,`subevent_id`);--> statement-breakpoint
CREATE TABLE `vouchers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`code` text NOT NULL,
	`max_usages` integer DEFAULT 1 NOT NULL,
	`min_usages` integer DEFAULT 1 NOT NULL,
	`redeemed` integer DEFAULT 0 NOT NULL,
	`valid_until` integer,
	`block_quota` integer DEFAULT false NOT NULL,
	`allow_ignore_quota` integer DEFAULT false NOT NULL,
	`price_mode` text DEFAULT 'none' NOT NULL,
	`value` integer DEFAULT 0 NOT NULL,
	`item_id` integer,
	`variation_id` integer,
	`quota_id` integer,
	`seat` text,
	`tag` text DEFAULT '' NOT NULL,
	`comment` text DEFAULT '' NOT NULL,
	`subevent_id` integer,
	`show_hidden_items` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`variation_id`) REFERENCES `item_variations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`quota_id`) REFERENCES `quotas`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subevent_id`) REFERENCES `subevents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vouchers_event_code_uq` ON `vouchers` (`event_id`,`code`);--> statement-breakpoint
CREATE INDEX `vouchers_event_tag_idx` ON `vouchers` (`event_id`,`tag`);--> statement-breakpoint
CREATE INDEX `vouchers_item_idx` ON `vouchers` (`item_id`);--> statement-breakpoint
CREATE INDEX `vouchers_quota_idx` ON `vouchers` (`quota_id`);