CREATE TABLE `dashboard_cache` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dashboard_cache_expires` ON `dashboard_cache` (`expires_at`);--> statement-breakpoint
ALTER TABLE `leads` ADD `user_id` integer REFERENCES users(id);--> statement-breakpoint
ALTER TABLE `leads` ADD `status` text DEFAULT 'new' NOT NULL;--> statement-breakpoint
ALTER TABLE `leads` ADD `owner_id` integer REFERENCES users(id);--> statement-breakpoint
ALTER TABLE `leads` ADD `notes` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `updated_at` integer;--> statement-breakpoint
CREATE INDEX `leads_status` ON `leads` (`status`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `leads_user` ON `leads` (`user_id`);--> statement-breakpoint
ALTER TABLE `payments` ADD `prev_settled_at` integer;--> statement-breakpoint
CREATE INDEX `payments_settled` ON `payments` (`status`,`settled_at`,`prev_settled_at`,`amount_cents`,`refunded_cents`);--> statement-breakpoint
CREATE INDEX `payments_user_settled` ON `payments` (`user_id`,`settled_at`);--> statement-breakpoint
CREATE INDEX `audit_log_actor` ON `audit_log` (`actor_id`,`at`);--> statement-breakpoint
CREATE INDEX `audit_log_action` ON `audit_log` (`action`,`at`);--> statement-breakpoint
CREATE INDEX `audit_log_target` ON `audit_log` (`target`,`at`);--> statement-breakpoint
CREATE INDEX `campaign_messages_user` ON `campaign_messages` (`user_id`,`id`);--> statement-breakpoint
CREATE INDEX `offers_status_created` ON `offers` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `users_connection` ON `users` (`is_admin`,`account_connected`,`phone_verified`,`expiration_at`);