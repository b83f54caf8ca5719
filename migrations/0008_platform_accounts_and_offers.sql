CREATE TABLE `platform_accounts` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`app` text NOT NULL,
	`email` text NOT NULL,
	`sealed_tokens` text,
	`connected_at` integer NOT NULL,
	`disconnected_at` integer,
	`disconnect_reason` text,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `platform_sign_ins` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`email` text NOT NULL,
	`kind` text NOT NULL,
	`sealed_session` text NOT NULL,
	`destination` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `platform_sign_ins_user` ON `platform_sign_ins` (`user_id`);--> statement-breakpoint
-- The foundation's stations, driver_filters and offers never held production data: they are
-- replaced by the shapes the capture engine needs (docs/engine.md), not migrated.
DROP TABLE `offers`;--> statement-breakpoint
DROP TABLE `driver_filters`;--> statement-breakpoint
DROP TABLE `stations`;--> statement-breakpoint
CREATE TABLE `stations` (
	`app` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`region` text NOT NULL,
	`time_zone` text NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`app`, `id`)
);
--> statement-breakpoint
CREATE TABLE `driver_filters` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`stations` text NOT NULL,
	`min_pay_cents` integer DEFAULT 0 NOT NULL,
	`min_hourly_cents` integer DEFAULT 0 NOT NULL,
	`arrival_buffer_minutes` integer DEFAULT 30 NOT NULL,
	`min_duration_minutes` integer DEFAULT 0 NOT NULL,
	`max_duration_minutes` integer DEFAULT 0 NOT NULL,
	`schedule` text NOT NULL,
	`daily_cap_minutes` integer DEFAULT 0 NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `offers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`app` text NOT NULL,
	`platform_offer_id` text NOT NULL,
	`station_id` text NOT NULL,
	`station_name` text NOT NULL,
	`time_zone` text NOT NULL,
	`status` text NOT NULL,
	`reasons` text,
	`pay_cents` integer NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	`block_id` text,
	`forfeited_at` integer,
	`arrived_at` integer,
	`seen_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `offers_user_offer` ON `offers` (`user_id`,`platform_offer_id`);--> statement-breakpoint
CREATE INDEX `offers_user_seen` ON `offers` (`user_id`,`seen_at`);--> statement-breakpoint
CREATE INDEX `offers_user_status_start` ON `offers` (`user_id`,`status`,`starts_at`);
