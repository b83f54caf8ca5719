ALTER TABLE `platform_accounts` ADD `station_ids` text;--> statement-breakpoint
ALTER TABLE `platform_accounts` ADD `stations_fetched_at` integer;