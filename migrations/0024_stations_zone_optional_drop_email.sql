PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_platform_accounts` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`app` text NOT NULL,
	`customer_id` text NOT NULL,
	`account_name` text NOT NULL,
	`sealed_tokens` text,
	`connected_at` integer NOT NULL,
	`disconnected_at` integer,
	`disconnect_reason` text,
	`station_ids` text,
	`stations_fetched_at` integer,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_platform_accounts`("user_id", "app", "customer_id", "account_name", "sealed_tokens", "connected_at", "disconnected_at", "disconnect_reason", "station_ids", "stations_fetched_at", "updated_at") SELECT "user_id", "app", "customer_id", "account_name", "sealed_tokens", "connected_at", "disconnected_at", "disconnect_reason", "station_ids", "stations_fetched_at", "updated_at" FROM `platform_accounts`;--> statement-breakpoint
DROP TABLE `platform_accounts`;--> statement-breakpoint
ALTER TABLE `__new_platform_accounts` RENAME TO `platform_accounts`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE TABLE `__new_stations` (
	`app` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`city` text,
	`time_zone` text,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`app`, `id`)
);
--> statement-breakpoint
INSERT INTO `__new_stations`("app", "id", "name", "city", "time_zone", "updated_at") SELECT "app", "id", "name", "city", "time_zone", "updated_at" FROM `stations`;--> statement-breakpoint
DROP TABLE `stations`;--> statement-breakpoint
ALTER TABLE `__new_stations` RENAME TO `stations`;