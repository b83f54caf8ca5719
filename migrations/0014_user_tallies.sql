CREATE TABLE `user_tallies` (
	`app` text NOT NULL,
	`is_admin` integer NOT NULL,
	`status` text NOT NULL,
	`account_connected` integer NOT NULL,
	`phone_verified` integer NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`app`, `is_admin`, `status`, `account_connected`, `phone_verified`)
);
