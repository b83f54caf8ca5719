CREATE TABLE `opt_out_hashes` (
	`hash` text NOT NULL,
	`channel` text NOT NULL,
	`at` integer NOT NULL,
	PRIMARY KEY(`hash`, `channel`)
);
--> statement-breakpoint
ALTER TABLE `users` ADD `erased_at` integer;