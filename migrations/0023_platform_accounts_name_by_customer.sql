CREATE TABLE `driver_station_zones` (
	`user_id` integer NOT NULL,
	`app` text NOT NULL,
	`station_id` text NOT NULL,
	`time_zone` text NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`user_id`, `app`, `station_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_platform_sign_ins` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`email` text,
	`kind` text NOT NULL,
	`sealed_session` text NOT NULL,
	`sign_in_url` text,
	`destination` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_platform_sign_ins`("id", "user_id", "email", "kind", "sealed_session", "sign_in_url", "destination", "attempts", "expires_at", "created_at") SELECT "id", "user_id", "email", "kind", "sealed_session", NULL, "destination", "attempts", "expires_at", "created_at" FROM `platform_sign_ins`;--> statement-breakpoint
DROP TABLE `platform_sign_ins`;--> statement-breakpoint
ALTER TABLE `__new_platform_sign_ins` RENAME TO `platform_sign_ins`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `platform_sign_ins_user` ON `platform_sign_ins` (`user_id`);--> statement-breakpoint
ALTER TABLE `platform_accounts` ADD `customer_id` text;--> statement-breakpoint
ALTER TABLE `platform_accounts` ADD `account_name` text;--> statement-breakpoint
ALTER TABLE `stations` ADD `city` text;--> statement-breakpoint
-- Accounts connected before keep their name: the email they signed in with names and identifies them.
UPDATE `platform_accounts` SET `customer_id` = `email`, `account_name` = `email`;--> statement-breakpoint
UPDATE `stations` SET `city` = `region`;
