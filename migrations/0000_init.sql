CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`actor_id` integer,
	`action` text NOT NULL,
	`target` text,
	`details` text,
	`at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_at` ON `audit_log` (`at`);--> statement-breakpoint
CREATE TABLE `auth_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`challenge` text NOT NULL,
	`expires_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`data` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `campaign_exclusions` (
	`campaign_id` integer NOT NULL,
	`phone` text NOT NULL,
	PRIMARY KEY(`campaign_id`, `phone`),
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `campaign_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`campaign_id` integer NOT NULL,
	`user_id` integer,
	`phone` text NOT NULL,
	`name` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`provider_id` text,
	`error_code` text,
	`error_message` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`dead_lettered` integer DEFAULT false NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `campaign_messages_campaign_phone` ON `campaign_messages` (`campaign_id`,`phone`);--> statement-breakpoint
CREATE INDEX `campaign_messages_status` ON `campaign_messages` (`campaign_id`,`status`);--> statement-breakpoint
CREATE INDEX `campaign_messages_provider` ON `campaign_messages` (`provider_id`);--> statement-breakpoint
CREATE TABLE `campaigns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app` text NOT NULL,
	`channel` text NOT NULL,
	`source` text NOT NULL,
	`message` text,
	`template` text,
	`audience` text NOT NULL,
	`author_id` integer NOT NULL,
	`idempotency_key` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	`skipped` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `campaigns_idempotency` ON `campaigns` (`author_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `campaigns_created` ON `campaigns` (`created_at`);--> statement-breakpoint
CREATE TABLE `driver_filters` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`station_ids` text NOT NULL,
	`min_hourly_cents` integer DEFAULT 0 NOT NULL,
	`min_block_pay_cents` integer DEFAULT 0 NOT NULL,
	`arrival_buffer_minutes` integer DEFAULT 30 NOT NULL,
	`schedule` text NOT NULL,
	`min_block_minutes` integer DEFAULT 0 NOT NULL,
	`max_block_minutes` integer DEFAULT 600 NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `invitations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`inviter_id` integer NOT NULL,
	`app` text NOT NULL,
	`phone` text NOT NULL,
	`invited_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`free_week` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`inviter_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_inviter_phone` ON `invitations` (`inviter_id`,`phone`);--> statement-breakpoint
CREATE INDEX `invitations_phone` ON `invitations` (`phone`);--> statement-breakpoint
CREATE INDEX `invitations_invited_at` ON `invitations` (`app`,`invited_at`);--> statement-breakpoint
CREATE TABLE `leads` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app` text NOT NULL,
	`phone` text NOT NULL,
	`name` text,
	`email` text,
	`source` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `leads_created` ON `leads` (`app`,`created_at`);--> statement-breakpoint
CREATE TABLE `offers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`station_id` integer,
	`status` text NOT NULL,
	`reason` text,
	`pay_cents` integer NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`station_id`) REFERENCES `stations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `offers_user_created` ON `offers` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `opt_outs` (
	`phone` text NOT NULL,
	`channel` text NOT NULL,
	`keyword` text NOT NULL,
	`at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`phone`, `channel`)
);
--> statement-breakpoint
CREATE TABLE `outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`channel` text NOT NULL,
	`to` text NOT NULL,
	`body` text NOT NULL,
	`provider_id` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `outbox_to` ON `outbox` (`to`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `outbox_provider_id` ON `outbox` (`provider_id`);--> statement-breakpoint
CREATE TABLE `payments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`plan_id` integer,
	`amount_cents` integer NOT NULL,
	`days` integer NOT NULL,
	`status` text NOT NULL,
	`provider_ref` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`plan_id`) REFERENCES `plans`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payments_user` ON `payments` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `payments_created` ON `payments` (`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `payments_provider_ref` ON `payments` (`provider_ref`);--> statement-breakpoint
CREATE TABLE `plans` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app` text NOT NULL,
	`name` text NOT NULL,
	`days` integer NOT NULL,
	`price_cents` integer NOT NULL,
	`active` integer DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE `rate_limits` (
	`key` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL,
	`reset_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `referral_codes` (
	`code` text PRIMARY KEY NOT NULL,
	`app` text NOT NULL,
	`owner` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `refresh_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`family` text NOT NULL,
	`user_id` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`revoked_at` integer,
	`replaced_by` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `refresh_tokens_family` ON `refresh_tokens` (`family`);--> statement-breakpoint
CREATE INDEX `refresh_tokens_user` ON `refresh_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `stations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app` text NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`region` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `stations_app_code` ON `stations` (`app`,`code`);--> statement-breakpoint
CREATE INDEX `stations_region` ON `stations` (`app`,`region`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app` text NOT NULL,
	`phone` text NOT NULL,
	`phone_verified` integer DEFAULT false NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`password_hash` text,
	`language` text DEFAULT 'en' NOT NULL,
	`is_admin` integer DEFAULT false NOT NULL,
	`role_name` text,
	`role_properties` text,
	`expiration_at` integer,
	`good_standing` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`human_region` text,
	`delivery_area` text,
	`account_connected` integer DEFAULT false NOT NULL,
	`setup_complete` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'stop' NOT NULL,
	`referral_code` text,
	`invite_code` text NOT NULL,
	`stripe_customer_id` text,
	`stripe_express_id` text,
	`mfa_secret` text,
	`mfa_method` text DEFAULT 'none' NOT NULL,
	`last_sign_in_at` integer,
	`must_change_password` integer DEFAULT false NOT NULL,
	`sms_opt_out` integer DEFAULT false NOT NULL,
	`whatsapp_opt_out` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_app_phone` ON `users` (`app`,`phone`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_invite_code` ON `users` (`invite_code`);--> statement-breakpoint
CREATE INDEX `users_app_created` ON `users` (`app`,`created_at`);--> statement-breakpoint
CREATE INDEX `users_app_expiration` ON `users` (`app`,`expiration_at`);--> statement-breakpoint
CREATE INDEX `users_app_referral` ON `users` (`app`,`referral_code`);--> statement-breakpoint
CREATE INDEX `users_app_region` ON `users` (`app`,`human_region`);--> statement-breakpoint
CREATE INDEX `users_app_area` ON `users` (`app`,`delivery_area`);--> statement-breakpoint
CREATE INDEX `users_phone` ON `users` (`phone`);--> statement-breakpoint
CREATE TABLE `verification_codes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app` text NOT NULL,
	`phone` text NOT NULL,
	`purpose` text NOT NULL,
	`code_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`consumed_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `verification_codes_lookup` ON `verification_codes` (`app`,`phone`,`purpose`,`created_at`);--> statement-breakpoint
CREATE TABLE `whatsapp_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`language` text NOT NULL,
	`status` text DEFAULT 'APPROVED' NOT NULL,
	`components` text NOT NULL,
	`synced_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
